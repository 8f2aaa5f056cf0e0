import { describe, expect, it } from "vitest";
import { signatureOf } from "../src/hunt/failure-signature.js";
import { runScenario } from "../src/run/run-scenario.js";
import { toSimulationSpec } from "../src/scenario/load-scenario.js";
import { committedPartitionsIn, SEED_184_GROUP, swarmConsumerScenario } from "./helpers.js";

/**
 * Found by swarm seed 184, shrunk: two KIP-848 members auto-committing every 5 s, member-1's requests to the
 * coordinator cut from 19.6 s to 45.5 s. member-1's auto-commit of 19.6 s is held by the cut; request.timeout.ms
 * (30 s) passes and the client closes that connection (NetworkClient.handleTimedOutRequests), but a closed
 * socket's unacknowledged bytes stay with the kernel, which keeps retransmitting them (Kafka sets no SO_LINGER),
 * its timeout doubling from 200 ms: the attempt after the heal comes 51 s after the send, at 70.6 s. By then
 * member-1 has reconnected and committed further; its session (45 s) never ran out, so its member epoch is
 * unchanged. The broker reads a request that arrives before the connection's FIN (Selector's GRACEFUL close keeps
 * outstanding receives), the coordinator checks only the epoch (ConsumerGroup.validateOffsetCommit), and the old
 * offsets overwrite the newer ones: the group's committed offsets go back by about 100 records.
 */
const scenario = swarmConsumerScenario({
  ...SEED_184_GROUP,
  name: "stale-commit-retransmitted",
  durationMs: 73_000,
  partitions: [{ name: "p0", a: ["member-1"], b: ["coordinator-0"], direction: "a-to-b", startMs: 19_579, endMs: 45_495 }],
});

describe("swarm seed 184: an OffsetCommit retransmitted on a connection its client had closed", () => {
  it("lands after the member's newer commits, with its still-current epoch, and moves the offsets back", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 184 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["committed-offsets-monotonic"]);
    // The checker tells the trip itself, and the close puts it in a finding of its own.
    const violation = failing[0]?.[1].violations[0];
    expect(violation?.message).toMatch(
      /^group swarm: swarm-\d+ committed \d+ after \d+ \(by [^)]+\); its OffsetCommit from member-1 was sent at 19\.580 s and arrived at 70\.581 s, on a connection member-1 had closed at 49\.580 s \(closed by its client: a request timed out\)$/,
    );
    expect(signatureOf(violation, result.log, toSimulationSpec(scenario, { seed: 184 }))).toEqual({
      events: ["conn close", "gc.offset-commit", "send OffsetCommitRequest"],
      roles: ["consumer", "group-coordinator"],
    });

    const events = result.log.toArray();
    const commits = events.flatMap((event) =>
      event.ev === "send" && event.type === "OffsetCommitRequest" && event.from === "member-1" ? [event] : [],
    );
    const closes = events.flatMap((event) => (event.ev === "conn" && event.actor === "member-1" && event.what === "close" ? [event] : []));
    const last = new Map<number, { offset: number; epoch: number }>();
    let backward = 0;
    for (const o of committedPartitionsIn(events)) {
      if (o.errorCode !== 0) continue;
      const before = last.get(o.partition);
      last.set(o.partition, { offset: o.offset, epoch: o.epoch });
      if (before === undefined || o.offset >= before.offset) continue;
      backward++;
      // The same member epoch as the newer commit it overwrote: nothing fenced member-1 meanwhile.
      expect(o.epoch).toBe(before.epoch);
      // Carried by a request member-1 sent during the cut and that arrived 51 s later, after member-1 had closed
      // the connection it was sent on.
      const carrier = commits.find((send) => send.ev === "send" && send.held === true && o.t - (send.at[0] as number) < 20_000);
      expect(carrier).toBeDefined();
      if (carrier === undefined || carrier.ev !== "send") continue;
      expect(carrier.t).toBeGreaterThan(19_579_000);
      expect(carrier.t).toBeLessThan(45_495_000);
      expect((carrier.at[0] as number) - carrier.t).toBeGreaterThan(50_000_000);
      const closed = closes.find((close) => close.ev === "conn" && close.gen === carrier.conn);
      expect(closed?.t).toBeLessThan(carrier.at[0] as number);
    }
    expect(backward).toBeGreaterThan(0);
  }, 60_000);
});
