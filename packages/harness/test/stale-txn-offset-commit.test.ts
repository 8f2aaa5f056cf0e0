import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";

/**
 * chaos-eos with the faults `kcsim hunt` drew from seeds 15 and 59 (the failures' scenario.json, kept as
 * fixtures). In both, a member's TxnOffsetCommit is held by a network partition, request.timeout.ms passes, the
 * client closes the connection and goes on with its transactions on a new one, and the kernel's retransmission of
 * the closed socket's bytes delivers the old request seconds later (the OffsetCommit of "What kcsim found", in
 * its transactional form). The group coordinator takes it as a pending offset of the producer, and the marker of
 * the producer's next committed transaction makes it the group's offset: the offset goes back.
 */
const fixture = (name: string) => loadScenarioFile(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));

interface TxnOffset {
  readonly type: "gc.txn-offset";
  readonly producerId: number;
  readonly transactionalId: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly outcome: string;
}

/** The pending transactional offset the backward commit came from, the request that carried it, and what its producer did before. */
function staleOffset(events: readonly HistoryEvent[], violationAt: number, message: string) {
  const [, topic, partition, offset] = /: (.+)-(\d+) committed (\d+) after/.exec(message) ?? [];
  const txnOffsets = events.flatMap((event) =>
    event.ev === "obs" && event.o.type === "gc.txn-offset" ? [{ t: event.t, actor: event.actor, o: event.o as unknown as TxnOffset }] : [],
  );
  const stale = txnOffsets
    .filter(({ t, o }) => t <= violationAt && o.topic === topic && o.partition === Number(partition) && o.offset === Number(offset))
    .at(-1);
  if (stale === undefined) throw new Error(`no pending transactional offset for ${message}`);
  const member = stale.o.transactionalId.replace(/^pipeline-/, "");
  // The coordinator answered the request when it took the offset: the answer names the connection the request
  // came on, and the request is the last one on it to arrive by then.
  const answer = events.find(
    (event) => event.ev === "send" && event.t === stale.t && event.type === "TxnOffsetCommitResponse" && event.to === member,
  );
  const connection = answer?.ev === "send" && answer.conn !== undefined ? -answer.conn : Number.NaN;
  const carrier = events
    .filter(
      (event): event is Extract<HistoryEvent, { ev: "send" }> =>
        event.ev === "send" &&
        event.type === "TxnOffsetCommitRequest" &&
        event.from === member &&
        event.conn === connection &&
        event.at.some((at) => at <= stale.t),
    )
    .at(-1);
  if (carrier === undefined) throw new Error(`no TxnOffsetCommit from ${member} before ${stale.t}`);
  const closed = events.find(
    (event) => event.ev === "conn" && event.actor === member && event.gen === carrier.conn && event.what === "close",
  );
  const lastMarker = events.filter(
    (event) =>
      event.ev === "obs" &&
      event.t < stale.t &&
      event.o.type === "gc.txn-marker" &&
      (event.o as unknown as { producerId: number }).producerId === stale.o.producerId,
  );
  const markerAt = lastMarker.at(-1)?.t ?? 0;
  // What the producer's transaction of the moment had written to the offsets log before the stale request came.
  const ongoing = txnOffsets.filter(
    ({ t, o }) => o.producerId === stale.o.producerId && o.outcome === "pending" && t > markerAt && t < stale.t,
  );
  return { stale, carrier, closed, ongoing };
}

describe("chaos-eos, drawn faults: a TxnOffsetCommit retransmitted on a connection its client had closed", () => {
  it("seed 15: lands inside the producer's next transaction, which already holds offsets, and moves the offset back", async () => {
    const { summary, result } = await runScenario(fixture("chaos-eos-15-stale-txn-offset-commit.json"), { host: "inline", seed: 15 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["committed-offsets-monotonic"]);
    const violation = failing[0]?.[1].violations[0];
    expect(violation?.message).toBe("group pipeline: in-0 committed 107 after 122 (by IatOddpkTgmIILsfRd9whg)");

    const { stale, carrier, closed, ongoing } = staleOffset(result.log.toArray(), violation?.t as number, violation?.message as string);
    // Sent during the cut (member-1 to the coordinators, 32.8 to 37.7 s), delivered after the client closed the connection.
    expect(carrier.t).toBe(32_887_129);
    expect(carrier.at).toEqual([39_088_327]);
    expect(closed?.t).toBe(37_887_129);
    expect(stale.o.outcome).toBe("pending");
    // The producer's transaction of the moment had already written offsets to the log, so Kafka's broker would not
    // verify this one either (UnifiedLog.maybeStartTransactionVerification: hasOngoingTransaction): Kafka takes it too.
    expect(ongoing.length).toBeGreaterThan(0);
  }, 60_000);

  /**
   * Seed 59: the stale request comes between two of its producer's transactions, when the producer has written
   * nothing to the offsets log since its last marker. Kafka 3.6 and later verify such a write with the transaction
   * coordinator first (KIP-890 part 1, transaction.partition.verification.enable, true by default: the
   * coordinator's partition writer, then AddPartitionsToTxn with verifyOnly), which answers TRANSACTION_ABORTABLE
   * for a partition outside the producer's ongoing transaction, and the offset is never written. kcsim does not
   * model that verification yet, so it takes the offset and committed-offsets-monotonic fails where Kafka would
   * not: a false alarm, pinned here so that it cannot change unnoticed, and stated as Kafka's outcome below.
   */
  // One run serves both tests of seed 59 (each only reads it).
  let seed59Run: ReturnType<typeof runScenario> | undefined;
  const seed59 = () => {
    seed59Run ??= runScenario(fixture("chaos-eos-59-stale-txn-offset-commit.json"), { host: "inline", seed: 59 });
    return seed59Run;
  };

  it("seed 59: kcsim takes it although its producer has no transaction writing to the offsets log (the gap)", async () => {
    const { summary, result } = await seed59();
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["committed-offsets-monotonic"]);
    const violation = failing[0]?.[1].violations[0];
    expect(violation?.message).toBe("group pipeline: in-7 committed 67 after 95 (by LOBNwueGRqaeAROeK8FdRw)");
    const { carrier, closed, ongoing } = staleOffset(result.log.toArray(), violation?.t as number, violation?.message as string);
    expect(closed?.t).toBeLessThan(carrier.at[0] as number);
    expect(ongoing).toEqual([]);
  }, 60_000);

  // What Kafka does: the verification refuses the stale offset. Known to fail until kcsim models KIP-890's
  // verification; `fails` will report the day it passes.
  it.fails("seed 59: is refused, as by Kafka's KIP-890 verification (not modelled yet)", async () => {
    const { summary } = await seed59();
    expect(summary.checks["committed-offsets-monotonic"]?.ok).toBe(true);
  }, 60_000);
});
