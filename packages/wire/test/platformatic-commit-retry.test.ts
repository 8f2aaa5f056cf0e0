import { Consumer, stringDeserializers } from "@platformatic/kafka";
import { afterEach, describe, expect, it } from "vitest";
import { ToyBroker } from "./support/toy-broker.js";

/**
 * A finding of kcsim serve (serve-kip848-client's chaos run, docs/real-clients.md): @platformatic/kafka 1.35.0
 * retries a failed OffsetCommit with the offsets it was first sent with, after a later commit of newer offsets
 * has been accepted, so the group's committed offset goes back. `Consumer.commit` runs through
 * `kPerformWithRetry` (dist/clients/base/base.js), which sends the same request again after `retryDelay` on any
 * retriable error, and nothing stops a second commit meanwhile (the messages stream's autocommit timer does
 * not wait for the one in flight). Kafka's Java consumer does not retry an asynchronous commit: its auto-commit
 * sends the positions of the moment at its next attempt (ConsumerCoordinator.autoCommitOffsetsAsync,
 * CommitRequestManager.maybeAutoCommitAsync: a retriable failure only brings the next attempt forward). Here the order is made certain: the toy broker refuses the first
 * OffsetCommit (COORDINATOR_NOT_AVAILABLE, retriable), the second commit goes out and is accepted before the
 * client's retry delay is over.
 */
describe("@platformatic/kafka 1.35.0 retries an older commit past a newer one", () => {
  let broker: ToyBroker | undefined;
  let consumer: Consumer<string, string, string, string> | undefined;
  afterEach(async () => {
    await consumer?.close(true);
    await broker?.stop();
    consumer = undefined;
    broker = undefined;
  });

  it("offset 13, refused once, is committed again after offset 21 was accepted: the committed offset goes from 21 back to 13", async () => {
    broker = await new ToyBroker({ topics: { orders: 1 }, failOffsetCommits: 1 }).start();
    consumer = new Consumer({
      groupId: "g",
      clientId: "kcsim-wire-test",
      bootstrapBrokers: [broker.bootstrap],
      groupProtocol: "consumer",
      deserializers: stringDeserializers,
      maxWaitTime: 100,
      retries: 3,
      retryDelay: 3_000,
    });
    // A member of the group (a commit carries its member id and epoch), committing by hand.
    const stream = await consumer.consume({ topics: ["orders"], autocommit: false, mode: "earliest" });
    const older = consumer.commit({ offsets: [{ topic: "orders", partition: 0, offset: 13n, leaderEpoch: 0 }] });
    const refused = broker;
    const until = async (condition: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!condition()) {
        if (Date.now() > deadline)
          throw new Error(
            `offset commits so far: ${JSON.stringify(refused.offsetCommits, (_, v) => (typeof v === "bigint" ? Number(v) : v))}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await until(() => refused.offsetCommits.length === 1);
    await consumer.commit({ offsets: [{ topic: "orders", partition: 0, offset: 21n, leaderEpoch: 0 }] });
    expect(broker.committedOffset("g", "orders", 0)).toBe(21n);
    await older;
    expect(broker.offsetCommits.map((c) => [Number(c.offset), c.errorCode])).toEqual([
      [13, 15],
      [21, 0],
      [13, 0],
    ]);
    expect(broker.committedOffset("g", "orders", 0)).toBe(13n);
    await stream.close();
  }, 30_000);
});
