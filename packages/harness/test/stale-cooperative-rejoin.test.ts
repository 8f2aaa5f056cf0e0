import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";

/**
 * Swarm seed 4967 (its first 130 s): member-2, a static cooperative classic member, is frozen from 59 s to
 * 114.8 s holding swarm-4 at generation 2. Generation 3 completes without it (117.8 s) and gives swarm-4 to
 * member-5. member-2 rejoins at 119.8 s without having been told (its heartbeat thread is off while it is in
 * PREPARING_REBALANCE: AbstractCoordinator's MemberState.hasNotJoinedGroup), and a cooperative member keeps the
 * partitions it owns through the rebalance (ConsumerCoordinator.onJoinPrepare, COOPERATIVE). Its JoinGroup answer
 * puts it in generation 4 (126.837 s) before its SyncGroup answer makes it revoke swarm-4 (onJoinComplete): for
 * that round trip a member of the current generation holds a partition another member owns, and the coordinator
 * would take its commits (ClassicGroup.validateOffsetCommit checks the generation, not the partitions). A real
 * Kafka window, not a false alarm: single-owner must fail there, and only there.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-4967-stale-cooperative-rejoin.json", import.meta.url)));

describe("swarm seed 4967: a cooperative member rejoins a generation later still holding a partition it lost", () => {
  it("holds it in the new generation until its SyncGroup answer: single-owner fails for that round trip", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 4967 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["single-owner"]);
    const violations = failing[0]?.[1].violations ?? [];
    // The checker tells the window: the take, the record of the generation member-2 missed, the JoinGroup answer.
    expect(violations.map((v) => v.message)).toEqual([
      "swarm-4 owned by member-5 and member-2 at once: member-2's client joined generation 4 at 126.983 s still owning swarm-4, which it took at 51.138 s (generation 2) and the coordinator's record of member-2 at 117.978 s (generation 3, which its client missed) had left out: a cooperative client keeps what it owns while it rejoins (ConsumerCoordinator.onJoinPrepare) and gives up what it lost only at its SyncGroup answer (onJoinComplete)",
    ]);
    const at = violations[0]?.t as number;
    const log = result.log.toArray();
    expect(
      (violations[0]?.events ?? []).map((i) => {
        const e = log[i];
        return e?.ev === "obs" ? `${e.t} ${e.actor} ${e.o.type}` : `${e?.t} ${e?.ev}`;
      }),
    ).toEqual(["51138308 member-2 member.owned", "117977854 coordinator-0 gc.member", "126983379 member-2 member.state"]);

    // member-2 at that instant: its JoinGroup answer (generation 4) has come, its SyncGroup answer has not.
    const states: { t: number; to: string; generation: number }[] = [];
    let revokedAt = Number.NaN;
    result.log.forEach((event) => {
      if (event.ev !== "obs" || event.actor !== "member-2") return;
      const o = event.o as {
        type: string;
        to?: string;
        memberEpoch?: number;
        callback?: string;
        phase?: string;
        partitions?: Record<string, number[]>;
      };
      if (o.type === "member.state") states.push({ t: event.t, to: o.to as string, generation: o.memberEpoch as number });
      if (
        o.type === "member.callback" &&
        o.callback === "onPartitionsRevoked" &&
        o.phase === "end" &&
        o.partitions?.swarm?.includes(4) &&
        Number.isNaN(revokedAt)
      )
        revokedAt = event.t;
    });
    const before = states.filter((s) => s.t <= at).at(-1);
    expect(before).toEqual({ t: at, to: "COMPLETING_REBALANCE", generation: 4 });
    expect(revokedAt).toBeGreaterThan(at);
    expect(revokedAt - at).toBeLessThan(50_000);
  }, 60_000);
});
