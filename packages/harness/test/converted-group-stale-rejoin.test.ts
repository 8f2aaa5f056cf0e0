import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";

/**
 * rolling-upgrade with the faults `kcsim hunt` drew from seed 14 (the failure's scenario.json, kept as a fixture):
 * the window of stale-cooperative-rejoin.test.ts (swarm seed 4967), in a group converted to the consumer protocol.
 *
 * member-5, a cooperative classic member, has a JoinGroup parked at the coordinator when a two-way partition cuts
 * it off (28.8 to 71.8 s). At 30.5 s member-1-r joins with the consumer protocol and the group is converted: the
 * parked JoinGroup is answered REBALANCE_IN_PROGRESS, and member-5 becomes a member of the consumer group, its
 * session timer started. The answer waits in the coordinator's socket through the cut; a classic member sends no
 * heartbeat while it waits for a JoinGroup answer (AbstractCoordinator's MemberState.hasNotJoinedGroup), so its
 * session runs out at 75.5 s and its partitions go to the others. It keeps them meanwhile (a cooperative member
 * keeps what it owns through a rebalance): a zombie. The answer arrives at 81.5 s, on the eighth retransmission,
 * and member-5 rejoins with its member id. A classic group would answer UNKNOWN_MEMBER_ID, and the client would
 * call onPartitionsLost; a consumer group makes a new member of that id
 * (GroupMetadataManager.classicGroupJoinToConsumerGroup creates it if it does not exist), so member-5 is a member
 * of generation 12 holding partitions that others own until its SyncGroup answer makes it revoke them, and the
 * coordinator would take its commits of them in that round trip (the member epoch is checked, not the partitions).
 * A real Kafka window, not a false alarm: single-owner fails there, and only there.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/rolling-upgrade-14-converted-stale-rejoin.json", import.meta.url)));

interface MemberObservation {
  readonly type: string;
  readonly memberId?: string;
  readonly memberEpoch?: number;
  readonly previousMemberEpoch?: number;
  readonly reason?: string;
  readonly to?: string;
  readonly callback?: string;
  readonly phase?: string;
  readonly partitions?: Record<string, number[]>;
}

describe("rolling-upgrade seed 14: a converted group re-admits a classic member its session timeout removed", () => {
  it("under its old id, holding the partitions it lost until its SyncGroup answer: single-owner fails for that round trip", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 14 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["single-owner"]);
    const violations = failing[0]?.[1].violations ?? [];
    // Each tells the story (removed by its session timeout, admitted again under the same id, which only a consumer
    // group does for a classic JoinGroup) and cites its events: the removal, and the re-admission, where the conflict
    // begins.
    const story =
      "the coordinator removed member-5's member id at 75.517 s (session-timeout) and admitted it again at 81.529 s, while its client still owned T1-4, T1-10, T1-16, T1-22; a consumer group makes a member of a classic JoinGroup's member id it no longer has (GroupMetadataManager.classicGroupJoinToConsumerGroup), where a classic group answers UNKNOWN_MEMBER_ID";
    expect(violations.map((v) => v.message)).toEqual([
      `T1-4 owned by member-1-r and member-5 at once: ${story}`,
      `T1-10 owned by member-2-r and member-5 at once: ${story}`,
      `T1-16 owned by member-3-r and member-5 at once: ${story}`,
      `T1-22 owned by member-1-r and member-5 at once: ${story}`,
    ]);
    const events0 = result.log.toArray();
    expect(violations[0]?.events.map((i) => (events0[i]?.ev === "obs" ? events0[i].o.type : events0[i]?.ev))).toEqual([
      "gc.member-removed",
      "gc.member",
    ]);
    const at = violations[0]?.t as number;
    expect(violations.every((v) => v.t === at)).toBe(true);

    const events = result.log.toArray();
    const observed = (actor: string) =>
      events.flatMap((event) =>
        event.ev === "obs" && event.actor === actor ? [{ t: event.t, o: event.o as unknown as MemberObservation }] : [],
      );
    // member-5's member id when it rejoined (the one it had held since its first join).
    const memberId = observed("member-5")
      .filter(({ t, o }) => t <= at && o.type === "member.state")
      .at(-1)?.o.memberId;
    expect(memberId).toMatch(/^member-5-/);
    const aboutMember5 = observed("coordinator-0").filter(({ o }) => o.memberId === memberId);

    // Converted with the group at 30.5 s, removed by its session timeout at 75.5 s, made again under the same id.
    const removals = aboutMember5.filter(({ t, o }) => t <= at && o.type === "gc.member-removed");
    expect(removals.map(({ t, o }) => [t, o.reason])).toEqual([
      [30_517_009, "group-converted"],
      [75_517_009, "session-timeout"],
    ]);
    const readmitted = aboutMember5.find(({ t, o }) => t > 75_517_009 && o.type === "gc.member");
    expect(readmitted).toEqual({ t: at, o: expect.objectContaining({ previousMemberEpoch: 0, memberEpoch: 12 }) });

    // The JoinGroup answer the conversion sent (30.5 s) reached member-5 through the cut's retransmissions.
    const joinAnswer = events.find(
      (event) => event.ev === "send" && event.type === "JoinGroupResponse" && event.to === "member-5" && event.t === 30_517_009,
    );
    expect(joinAnswer?.ev === "send" ? joinAnswer.at : []).toEqual([81_518_026]);

    // At the violation the coordinator has just made member-5 a member of generation 12, while its client, still
    // waiting in PREPARING_REBALANCE, holds what it owned. Its JoinGroup answer brings generation 12, and its
    // SyncGroup answer makes it revoke all four, within the same round trip.
    const states = observed("member-5").flatMap(({ t, o }) =>
      o.type === "member.state" ? [{ t, to: o.to, generation: o.memberEpoch }] : [],
    );
    expect(states.filter((s) => s.t <= at).at(-1)?.to).toBe("PREPARING_REBALANCE");
    const revoked = observed("member-5").find(
      ({ t, o }) => t >= at && o.type === "member.callback" && o.callback === "onPartitionsRevoked" && o.phase === "end",
    );
    expect(revoked?.o.partitions).toEqual({ T1: [4, 10, 16, 22] });
    expect((revoked?.t as number) - at).toBeLessThan(50_000);
    expect(states.find((s) => s.t > at)).toEqual({ t: expect.any(Number), to: "COMPLETING_REBALANCE", generation: 12 });
  }, 60_000);
});
