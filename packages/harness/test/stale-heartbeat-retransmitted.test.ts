import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { observationOf } from "../src/analysis/observations.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";

/**
 * coordinator-failover with the faults drawn from seed 188, less the plan's second partition, and the eleventh
 * member joining at 61.6 s (fixtures/coordinator-failover-188-stale-heartbeat.json): member-9's heartbeat of 10.8 s
 * is held by a partition; the client gives that connection up at 40.8 s and heartbeats in full on a new one. The
 * closed socket's kernel delivers the old heartbeat on its eighth retransmission, at 61.8 s, just after the new
 * member moved the group epoch and before member-9's next heartbeat: its member epoch is still current, so the
 * coordinator reconciles member-9 to UNREVOKED_PARTITIONS and answers on the closed connection. The heartbeats
 * that follow are incremental, and the coordinator sends an assignment only for a full request or one that
 * changed it (GroupMetadataManager.consumerGroupHeartbeat), so member-9 never learns to revoke; the group waits
 * for the rebalance timeout (300 s) to fence it.
 *
 * (The drawn plan itself showed the chain only while the router let that retransmission through its second
 * partition, p0, which blocked member-9's traffic to the coordinator from 48.6 to 67.1 s; see router.test.ts,
 * "a retransmission that a later partition blocks is lost too".)
 */
const fixture = fileURLToPath(new URL("./fixtures/coordinator-failover-188-stale-heartbeat.json", import.meta.url));

describe("coordinator-failover, seed 188's faults: a heartbeat retransmitted on a closed connection", () => {
  it("reconciles its member after newer heartbeats; the answer is lost and only the rebalance timeout unsticks the group", async () => {
    const scenario = loadScenarioFile(fixture);
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 188 });
    expect(summary.checks.converges?.ok).toBe(true);
    expect(summary.checks.converges?.notJudged).toBeUndefined();
    const events = result.log.toArray();

    const stale = events.find(
      (e) => e.ev === "send" && e.from === "member-9" && e.type === "ConsumerGroupHeartbeatRequest" && (e.at[0] ?? 0) - e.t > 50_000_000,
    );
    if (stale?.ev !== "send") throw new Error("no heartbeat of member-9 arrived 50 s after its send");
    const arrived = stale.at[0] ?? 0;
    expect(stale.t).toBe(10_836_466);
    expect(arrived).toBeGreaterThan(61_800_000);
    const closed = events.find((e) => e.ev === "conn" && e.actor === "member-9" && e.what === "close" && e.gen === stale.conn);
    expect(closed?.t).toBeLessThan(arrived);
    // The new member moved the group epoch after member-9's last heartbeat before the old one arrived.
    const bump = events.find((e) => e.ev === "obs" && observationOf(e, "gc.group")?.groupEpoch === 11);
    const liveArrivals = events.flatMap((e) =>
      e.ev === "send" && e.from === "member-9" && e.type === "ConsumerGroupHeartbeatRequest" && e !== stale && (e.at[0] ?? 0) < arrived
        ? [e.at[0] ?? 0]
        : [],
    );
    const lastLiveAt = Math.max(...liveArrivals);
    expect(bump?.t).toBeGreaterThan(lastLiveAt);
    expect(bump?.t).toBeLessThan(arrived);
    // Nothing blocked member-9's bytes to the coordinator when the retransmission went out.
    for (const p of scenario.partitions ?? []) {
      const cuts = p.a.includes("member-9") && p.b.includes("coordinator-0") && p.direction !== "b-to-a";
      if (cuts) expect(arrived < p.startMs * 1000 || arrived - 1_000 >= p.endMs * 1000, p.name).toBe(true);
    }

    const memberId = events.flatMap((e) => {
      const state = e.ev === "obs" && e.actor === "member-9" ? observationOf(e, "member.state") : undefined;
      return state === undefined ? [] : [state.memberId];
    })[0];
    const coordinatorSays = events.flatMap((e) => {
      const member = e.ev === "obs" ? observationOf(e, "gc.member") : undefined;
      return member !== undefined && member.memberId === memberId ? [{ t: e.t, state: member.state, epoch: member.memberEpoch }] : [];
    });
    const unrevoked = coordinatorSays.find((m) => m.state === "UNREVOKED_PARTITIONS");
    // Served as it arrived (a request's service time later), before any newer heartbeat of member-9.
    expect(unrevoked?.t).toBeGreaterThanOrEqual(arrived);
    expect(unrevoked?.t).toBeLessThan(arrived + 50_000);
    expect(unrevoked?.epoch).toBe(10);
    // Its answer went to the closed connection: member-9 stays STABLE at epoch 10 until it is fenced.
    const states = events.flatMap((e) => {
      const state = e.ev === "obs" && e.actor === "member-9" ? observationOf(e, "member.state") : undefined;
      return state === undefined || e.t < arrived ? [] : [{ t: e.t, to: state.to }];
    });
    expect(states[0]?.to).toBe("FENCED");
    const removed = events.find((e) => {
      const gone = e.ev === "obs" ? observationOf(e, "gc.member-removed") : undefined;
      return gone !== undefined && gone.memberId === memberId;
    });
    const reason = removed?.ev === "obs" ? observationOf(removed, "gc.member-removed")?.reason : undefined;
    expect(reason).toBe("rebalance-timeout");
    expect(removed?.t).toBeGreaterThan(arrived + 290_000_000);
    expect(states[0]?.t).toBeGreaterThanOrEqual(removed?.t ?? 0);
  }, 60_000);
});
