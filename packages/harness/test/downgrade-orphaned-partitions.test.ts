import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * Swarm-migration seed 1092, shrunk to its two network partitions: a static KIP-848 group of seven members is
 * downgraded, one member at a time, to eager classic members. In a mixed group a classic member whose target names
 * partitions other members still hold is UNRELEASED_PARTITIONS, and learns that they are free from its next
 * heartbeat, answered REBALANCE_IN_PROGRESS so that it rejoins for them
 * (`GroupMetadataManager.classicGroupHeartbeatToConsumerGroup`). When a classic static member replaces the last
 * consumer-protocol member, Kafka converts the group to a STABLE classic group (`convertToClassicGroup` with the
 * joining member) and rebalances only when the replacing member's subscription changed (KAFKA-19546) or, from 4.3,
 * when the target is stale (KAFKA-20273). A classic member still waiting for freed partitions is not told: a STABLE
 * classic group answers its heartbeats with NONE, so the partitions have no consumer until something else
 * rebalances the group. The classic group holds each member's target (`ClassicGroup.fromConsumerGroup`), so it names
 * swarm-12 and swarm-22 as member-6-r's, but the client never hears of them.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-migration-1092-orphaned-downgrade.json", import.meta.url)));

describe("swarm-migration seed 1092: a downgrade by static replacement orphans partitions a classic member was about to collect", () => {
  it("leaves swarm-12 and swarm-22 without a consumer from the downgrade at 97.6 s to the end", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 1092 });
    const events = result.log.toArray();
    expect(Object.entries(summary.checks).flatMap(([name, check]) => (check.ok ? [] : [name]))).toEqual(["converges"]);
    expect(summary.checks.converges?.violations[0]?.message).toBe(
      "group swarm never reached STABLE with all 27 partitions owned after the faults healed at 109603000 us; at the run's end swarm-12, swarm-22 had no live owner, and the coordinator's classic group is STABLE at epoch 9, converted online at 97.606 s: swarm-12, swarm-22 assigned to member-6-r, whose client owns swarm-25",
    );
    // It cites the group's last record, the conversion that made it classic and member-6-r's assignment in it: a hunt
    // files it apart from a classic group that simply leaves partitions out (seed 137241's stale claim).
    const cited = summary.checks.converges?.violations[0]?.events ?? [];
    expect(cited.map((i) => events[i]).map((e) => (e?.ev === "obs" ? `${e.t} ${e.o.type}` : ""))).toEqual([
      "97606413 gc.group",
      "97606413 gc.member-removed",
      "97606413 gc.member",
    ]);

    // member-6 was cut off and expired; member-6-r, its classic replacement, joined a group whose new target gave it
    // swarm-12 and swarm-22 as well as swarm-25, held by member-3 and member-4 until they release them.
    const member6 = observationsIn(events, "gc.member").find(({ t, o }) => o.instanceId === "member-6" && t > 73_000_000);
    expect(member6).toMatchObject({ t: 73_882_790, o: { memberEpoch: 9, state: "UNRELEASED_PARTITIONS", assigned: { swarm: [25] } } });
    // member-4, cut off from the coordinator from 78.7 s, cannot acknowledge giving up swarm-22; its classic replacement
    // (96.2 s) takes over its target, and swarm-22 is free from then on. swarm-12 was freed at 82.6 s.
    const member4 = observationsIn(events, "gc.member").filter(({ o }) => o.instanceId === "member-4" && o.memberEpoch === 9);
    expect(member4[0]).toMatchObject({ t: 96_233_050, o: { assigned: { swarm: [7, 8, 19, 21] } } });

    // member-3-r replaces the last consumer-protocol member at 97.6 s: the group becomes a STABLE classic group,
    // and member-6-r's next heartbeat (97.9 s), which would have sent it back to collect them, is answered NONE.
    const converted = observationsIn(events, "gc.group").find(({ o }) => o.protocol === "classic");
    expect(converted).toMatchObject({ t: 97_606_413, o: { state: "STABLE", groupEpoch: 9, members: 7 } });
    const heartbeats = events.filter(
      (e) => e.ev === "send" && e.from === "coordinator-0" && e.to === "member-6-r" && e.type === "HeartbeatResponse" && e.t > 97_606_413,
    );
    expect(heartbeats.length).toBeGreaterThan(50);
    expect(observationsIn(events, "gc.group").filter(({ t }) => t > 97_606_413)).toEqual([]);

    // Every member's classic assignment at the downgrade, and what the clients own to the end: no one has 12 or 22.
    const owners = new Map<string, number[]>();
    for (const { actor, o } of observationsIn(events, "member.owned"))
      owners.set(actor, ((o.owned as Record<string, number[]>).swarm ?? []).slice());
    const owned = new Set([...owners.values()].flat());
    expect([...Array(27).keys()].filter((p) => !owned.has(p))).toEqual([12, 22]);
    expect(owners.get("member-6-r")).toEqual([25]);
  });
});

/**
 * Swarm-migration seed 494, shrunk to two static cooperative classic members, two partitions and one network
 * partition: the same downgrade without a rebalance, and the converted classic group holds each member's target
 * assignment (`ClassicGroup.fromConsumerGroup`). member-3, cut off, expires; member-1 takes swarm-0 and swarm-1
 * (generation 2). member-3's process comes back, rejoins at 81.5 s, and is told to close at 83.89 s (its KIP-848
 * replacement starts at 84.39 s); its poll() still runs its join loop. member-3-r's first heartbeat upgrades the
 * group (target: member-1 swarm-0, member-3-r swarm-1, which member-1 must revoke first). The old process's JoinGroup,
 * retried after the upgrade answered it REBALANCE_IN_PROGRESS, then replaces member-3-r, the last consumer-protocol
 * member: Kafka downgrades to a STABLE classic group at once, its subscription unchanged, so without a rebalance. Its
 * SyncGroup is answered with its stored assignment, member-3-r's target, swarm-1, which member-1 still owns: member-1
 * hears of it only at its next heartbeat (every 9 s here), refused ILLEGAL_GENERATION because the classic group is at
 * generation 4 and its client at 2; it then gives up both partitions as lost and rejoins. Here member-3 is closing and
 * lets swarm-1 go 27 ms later; in the unshrunk seed member-2, rejoining the same way, held swarm-6 to swarm-11 beside
 * member-1 from 84.42 s until that heartbeat's answer at 87.13 s.
 */
const unrevoked = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-migration-494-downgrade-unrevoked.json", import.meta.url)));

describe("swarm-migration seed 494: a downgrade by static replacement hands a member partitions another still owns", () => {
  it("gives member-3 swarm-1 at 84.42 s, its target, while member-1 has not revoked it", async () => {
    const { summary, result } = await runScenario(unrevoked, { host: "inline", seed: 494 });
    const events = result.log.toArray();
    expect(Object.entries(summary.checks).flatMap(([name, check]) => (check.ok ? [] : [name]))).toEqual(["single-owner"]);
    expect(summary.checks["single-owner"]?.violations[0]?.message).toBe(
      "swarm-1 owned by member-1 and member-3 at once: the online downgrade at 84.418 s took member-1 as holding swarm-0 (its target assignment) while its client still owned swarm-1",
    );
    // The upgrade (84.406 s), then the downgrade (84.418 s) to a STABLE classic group at the same epoch: no rebalance.
    const groups = observationsIn(events, "gc.group").filter(({ t }) => t > 84_000_000);
    expect(groups.map(({ t, o }) => `${t} ${o.protocol} ${o.groupEpoch} ${o.state}`)).toEqual([
      "84406388 consumer 4 RECONCILING",
      "84418424 classic 4 STABLE",
    ]);
    // The classic group holds the targets: member-1 swarm-0, member-3 (taking over member-3-r's) swarm-1.
    const stored = observationsIn(events, "gc.member").filter(({ t }) => t === 84_418_424);
    expect(stored.slice(-2).map(({ o: m }) => [m.instanceId, m.assigned])).toEqual([
      ["member-1", { swarm: [0] }],
      ["member-3", { swarm: [1] }],
    ]);
    // member-1 owns both from generation 2 on, and nothing tells it to give swarm-1 up before member-3 takes it.
    const member1 = observationsIn(events, "member.owned", "member-1");
    expect(member1.at(-1)).toMatchObject({ t: 78_136_367, o: { owned: { swarm: [0, 1] } } });
    expect(observationsIn(events, "member.owned", "member-3").slice(-2)).toMatchObject([
      { t: 84_420_884, o: { owned: { swarm: [1] }, cause: "assigned" } },
      { t: 84_448_261, o: { owned: {}, cause: "leave" } },
    ]);
  });
});
