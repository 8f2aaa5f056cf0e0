import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * Swarm seed 137241, shrunk to four static cooperative classic members and six partitions. member-4 rejoins at
 * 89.1 s owning swarm-2, -3 and -4 (generation 3) and crashes at 96.0 s before the answer. Kafka keeps a static
 * member that has not rejoined in the next generation, with the subscription it last sent
 * (`completeClassicGroupJoin` removes only the dynamic ones), so the leader sees member-4 still owning swarm-4.
 * cooperative-sticky moves one of its three partitions away, and a partition changing owners is left out of the
 * assignment until its owner has revoked it and rejoined (KIP-429; only a member that revokes rejoins:
 * `ConsumerCoordinator.onJoinComplete`). member-4 is dead and never does, so generations 4 and 5 both leave swarm-4
 * unassigned. When member-4's process comes back (114.1 s) it rejoins under its instance id while the group is
 * STABLE, and Kafka then completes the join with the current assignment, without a rebalance, unless the group's
 * selected protocol would change (`updateStaticMemberThenRebalanceOrCompleteJoin`). Nothing starts another
 * generation: swarm-4 has no consumer for the rest of the run. The same stale subscription as seed 4967's (a
 * static member that missed a generation), here a liveness failure: converges fails, and only it.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-137241-stale-static-claim.json", import.meta.url)));

interface Assigned {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly assigned: Record<string, number[]>;
}

describe("swarm seed 137241: a crashed static member's stale claim keeps a partition out of every assignment", () => {
  it("leaves swarm-4 without a consumer after member-4's static rejoin: converges fails", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 137241 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["converges"]);
    expect(failing[0]?.[1].violations.map((v) => v.message)).toEqual([
      "group swarm never reached STABLE with all 6 partitions owned after the faults healed at 117544000 us; at the run's end swarm-4 had no live owner, and the coordinator's classic group is STABLE at epoch 5: swarm-4 assigned to no member: member-4's client named it among the partitions it owned in the JoinGroup it sent at 89.143 s and crashed at 96.042 s; the coordinator kept member-4, a static member, with that subscription in generations 4 and 5 (97.333 s and 115.682 s), as Kafka keeps a static member that has not rejoined (completeClassicGroupJoin removes only dynamic ones), and a cooperative assignment leaves out a partition moving away from the member that claims it until that member revokes it and rejoins (ConsumerCoordinator.onJoinComplete); member-4's new process joined at 116.175 s under its instance id, which Kafka answers in a STABLE group with the member's current assignment and no rebalance (GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin)",
    ]);
    const events = result.log.toArray();
    // It cites the story's events: the JoinGroup, the crash, the group's last record, the two generations' records
    // of member-4 and its replacement.
    expect(
      (failing[0]?.[1].violations[0]?.events ?? []).map((i) => {
        const e = events[i];
        if (e?.ev === "obs") return `${e.t} ${e.o.type}`;
        return e?.ev === "send" ? `${e.t} ${e.type}` : `${e?.t} ${e?.ev}`;
      }),
    ).toEqual([
      "89142761 JoinGroupRequest",
      "96042000 life",
      "97332804 gc.member",
      "115682479 gc.group",
      "115682479 gc.member",
      "116175002 gc.member-removed",
    ]);

    // member-4 rejoins owning swarm-2, -3 and -4 and crashes before the answer.
    const owned4 = observationsIn(events, "member.owned", "member-4")
      .filter(({ t }) => t < 89_142_761)
      .at(-1);
    expect(owned4?.o.owned).toEqual({ swarm: [2, 3, 4] });
    const joins4 = events.filter((e) => e.ev === "send" && e.from === "member-4" && e.type === "JoinGroupRequest").map((e) => e.t);
    expect(joins4.filter((t) => t > 85_000_000 && t < 96_042_000)).toEqual([89_142_761]);
    const life4 = events.flatMap((e) => (e.ev === "life" && e.actor === "member-4" ? [`${e.t} ${e.what}`] : []));
    expect(life4).toEqual(["756000 start", "96042000 crash", "114059000 restart"]);

    // Generations 4 and 5 keep member-4 (with swarm-2 and -3) and give swarm-4 to nobody.
    const assignments = observationsIn(events, "gc.member").map(({ t, o }) => ({ t, ...(o as unknown as Assigned) }));
    for (const generation of [4, 5]) {
      const members = assignments.filter((a) => a.memberEpoch === generation && a.t < 116_000_000);
      expect(members.length).toBeGreaterThan(0);
      expect(members.some((a) => a.memberId.startsWith("member-4-") && JSON.stringify(a.assigned) === '{"swarm":[2,3]}')).toBe(true);
      expect(members.flatMap((a) => a.assigned.swarm ?? [])).not.toContain(4);
    }

    // The restarted member-4 rejoins at generation 5: replaced under its instance id, no new generation.
    const replaced = observationsIn(events, "gc.member-removed").filter(
      ({ o }) => o.reason === "static-replaced" && o.instanceId === "member-4",
    );
    expect(replaced.map(({ t }) => t)).toEqual([116_175_002]);
    const groups = observationsIn(events, "gc.group");
    expect(groups.filter(({ t }) => t >= 116_175_002)).toEqual([]);
    expect(groups.at(-1)?.o).toMatchObject({ groupEpoch: 5, state: "STABLE" });

    // swarm-4: owned by member-4 up to its crash, by nobody after.
    const holders = observationsIn(events, "member.owned")
      .filter(({ t, o }) => t > 96_042_000 && ((o.owned as Record<string, number[]>).swarm ?? []).includes(4))
      .map(({ actor }) => actor);
    expect(holders).toEqual([]);
  }, 60_000);
});
