import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * Swarm-migration seed 11780, shrunk: a cooperative classic group of four whose member-4 is replaced by a KIP-848
 * consumer. When a classic group in COMPLETING_REBALANCE goes back to PREPARING_REBALANCE (a member joins before the
 * leader's SyncGroup), Kafka empties every member's stored assignment (`resetAndPropagateAssignmentWithError`), and
 * the next generation's assignments are stored only at the leader's SyncGroup. Cooperative members keep consuming
 * what they own meanwhile. If the first consumer-protocol member joins then, the online upgrade
 * (`ConsumerGroup.fromClassicGroup`) takes each member's stored assignment as what it holds: nothing. So the consumer
 * group believes every partition free, and the new member's first heartbeat gets partitions the cooperative members
 * still consume, until they rejoin and revoke them.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-migration-11780-upgrade-mid-rebalance.json", import.meta.url)));

describe("swarm-migration seed 11780: an online upgrade in the middle of a classic rebalance gives away partitions cooperative members own", () => {
  it("hands member-4-r swarm-24..31 at 70.98 s while member-2 and member-3 still own some of them", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 11780 });
    const events = result.log.toArray();
    expect(summary.checks["single-owner"]?.violations[0]?.message).toBe(
      "swarm-24 owned by member-2 and member-4-r at once: the online upgrade at 70.977 s took member-2 as holding nothing (the classic group's stored assignment) while its client still owned swarm-0, swarm-1, swarm-5, swarm-9, swarm-12, swarm-13 and 5 more",
    );

    // The classic group went back from COMPLETING_REBALANCE to PREPARING_REBALANCE at 69.65 s (stored assignments
    // emptied), and generation 4 is still waiting for the leader's SyncGroup when member-4-r joins.
    const classic = observationsIn(events, "gc.group").filter(({ o }) => o.protocol === "classic" && Number(o.groupEpoch) >= 3);
    expect(classic.map(({ t, o }) => `${t} ${o.groupEpoch} ${o.state}`)).toEqual([
      "69154047 3 COMPLETING_REBALANCE",
      "69653200 3 PREPARING_REBALANCE",
      "70506241 4 COMPLETING_REBALANCE",
    ]);
    // The upgrade: every classic member converted holding nothing, the new member given eight partitions at once.
    const converted = observationsIn(events, "gc.member").filter(({ t }) => t === 70_977_235);
    expect(converted.map(({ o }) => [o.memberEpoch, o.state, o.assigned])).toEqual([
      [4, "STABLE", {}],
      [4, "STABLE", {}],
      [4, "STABLE", {}],
      [6, "STABLE", { swarm: [24, 25, 26, 27, 28, 29, 30, 31] }],
    ]);

    // What the cooperative members own then: generation 2's assignment, which they never gave up.
    const lastOwned = (actor: string) =>
      observationsIn(events, "member.owned", actor)
        .filter(({ t }) => t < 70_977_235)
        .at(-1)?.o.owned;
    expect(lastOwned("member-2")).toEqual({ swarm: [0, 1, 5, 9, 12, 13, 17, 21, 24, 25, 29] });
    expect(lastOwned("member-3")).toEqual({ swarm: [2, 4, 6, 10, 14, 16, 18, 22, 26, 28, 30] });
    expect(observationsIn(events, "member.owned", "member-4-r")[0]).toMatchObject({
      t: 70_978_656,
      o: { owned: { swarm: [24, 25, 26, 27, 28, 29, 30, 31] } },
    });
  });
});

/**
 * Swarm-migration seed 20196, shrunk: the same conversion, reached without the reset. A cooperative classic group of
 * four completes generation 3 at the leader's SyncGroup (member-2 to keep swarm-0, -1 and -4 and give up -5 and -8).
 * member-3 collects its answer, revokes and rejoins at once, so the group goes back to PREPARING_REBALANCE (from
 * STABLE: the stored assignments stay), and member-2's SyncGroup, arriving after that, is answered
 * REBALANCE_IN_PROGRESS: member-2 never learns of the revocation and keeps swarm-5 and swarm-8. When member-4's
 * KIP-848 replacement joins, `ConsumerGroup.fromClassicGroup` takes generation 3's stored assignment as what member-2
 * holds, and the new member's first heartbeat gets swarm-8 while member-2 still consumes it.
 */
const unrevoked = loadScenarioFile(
  fileURLToPath(new URL("./fixtures/swarm-migration-20196-upgrade-before-revocation.json", import.meta.url)),
);

describe("swarm-migration seed 20196: an online upgrade gives away a partition whose revocation a member never received", () => {
  it("hands member-4-r swarm-8 at 94.87 s while member-2, whose SyncGroup was refused, still owns it", async () => {
    const { summary, result } = await runScenario(unrevoked, { host: "inline", seed: 20196 });
    const events = result.log.toArray();
    const violation = summary.checks["single-owner"]?.violations[0];
    expect(violation?.message).toBe(
      "swarm-8 owned by member-2 and member-4-r at once: the online upgrade at 94.866 s took member-2 as holding swarm-0, swarm-1, swarm-4 (the classic group's stored assignment) while its client still owned swarm-5, swarm-8",
    );
    // It cites member-2's converted record and member-4-r's taking swarm-8: a finding of its own in a hunt.
    expect(violation?.events.map((i) => events[i]).map((e) => (e?.ev === "obs" ? `${e.t} ${e.actor} ${e.o.type}` : ""))).toEqual([
      "94866046 coordinator-0 gc.member",
      "94867043 member-4-r member.owned",
    ]);

    // Generation 3 is stored at the leader's SyncGroup (90.06 s); member-3's rejoin sends the group back to
    // PREPARING_REBALANCE before member-2's SyncGroup is answered, with REBALANCE_IN_PROGRESS.
    const classic = observationsIn(events, "gc.group").filter(({ o }) => o.protocol === "classic" && Number(o.groupEpoch) === 3);
    expect(classic.map(({ t, o }) => `${t} ${o.state}`)).toEqual([
      "90049394 COMPLETING_REBALANCE",
      "90060790 STABLE",
      "90062991 PREPARING_REBALANCE",
      "94510652 PREPARING_REBALANCE",
    ]);
    const stored = observationsIn(events, "gc.member").filter(({ t, o }) => t === 90_060_790 && String(o.memberId).startsWith("member-2-"));
    expect(stored.map(({ o }) => o.assigned)).toEqual([{ swarm: [0, 1, 4] }]);
    const member2States = observationsIn(events, "member.state", "member-2").filter(({ t }) => t >= 90_000_000 && t < 94_000_000);
    expect(member2States.map(({ t, o }) => `${t} ${o.from}->${o.to}`)).toEqual([
      "90048295 STABLE->PREPARING_REBALANCE",
      "90073295 PREPARING_REBALANCE->COMPLETING_REBALANCE",
      "90075733 COMPLETING_REBALANCE->PREPARING_REBALANCE",
    ]);

    // The upgrade takes generation 3's stored assignment as held: member-2 converted with swarm-0, -1, -4 only.
    const converted = observationsIn(events, "gc.member").filter(({ t }) => t === 94_866_046);
    expect(converted.map(({ o }) => [String(o.memberId).slice(0, 9), o.assigned])).toEqual([
      ["member-3-", { swarm: [2, 3] }],
      ["member-2-", { swarm: [0, 1, 4] }],
      ["member-1-", {}],
      ["IrSGxCzDR", { swarm: [8] }],
    ]);
    const lastOwned = (actor: string, before: number) =>
      observationsIn(events, "member.owned", actor)
        .filter(({ t }) => t < before)
        .at(-1);
    expect(lastOwned("member-2", 94_866_046)).toMatchObject({ t: 51_138_047, o: { owned: { swarm: [0, 1, 4, 5, 8] } } });
    expect(observationsIn(events, "member.owned", "member-4-r")[0]).toMatchObject({ t: 94_867_043, o: { owned: { swarm: [8] } } });
    // member-2 gives swarm-8 up only when the converted group's SyncGroup answer reaches it.
    expect(lastOwned("member-2", 95_000_000)).toMatchObject({ t: 94_881_430, o: { owned: { swarm: [0, 1] }, cause: "revoked" } });
  });
});
