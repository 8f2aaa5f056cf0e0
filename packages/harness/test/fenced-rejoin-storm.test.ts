import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * Swarm seed 201831, run to 100 s. member-2 (KIP-848, dynamic) times out on poll at 86.6 s and sends its leave
 * heartbeat (epoch -1); a one-way cut has stalled its connection, so the leave waits in the socket (it arrives at
 * 108.1 s, after this run) and the coordinator still holds member-2 at epoch 2. When member-2's application polls
 * again (93.3 s) it rejoins under the same member id at epoch 0. Kafka 4.0's coordinator fences that: epoch 0 is
 * below the stored epoch and is not its previous one (`GroupMetadataManager.throwIfConsumerGroupMemberEpochIsInvalid`),
 * and the client rejoins at once after a fencing (`AbstractHeartbeatRequestManager` resets its backoff on
 * FENCED_MEMBER_EPOCH). So member-2 is fenced at every round trip until its session timeout removes its old self
 * (45 s after its last heartbeat that arrived), and only then joins: KAFKA-19233, fixed in Kafka in January 2026
 * by letting epoch 0 through that check. kcsim models the coordinator before the fix, and the fix behind the
 * broker switch kcsim.group.consumer.rejoin.at.epoch.zero.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-201831-fenced-rejoin.json", import.meta.url)));

describe("swarm seed 201831: a KIP-848 member whose leave is held rejoins under its member id and is fenced until its old self expires", () => {
  it("fences every epoch-0 heartbeat of member-2 from 93.3 s until the session timeout at 96.6 s, then lets it join", async () => {
    const { result } = await runScenario(scenario, { host: "inline", seed: 201831 });
    const events = result.log.toArray();

    // The leave heartbeat of 86.6 s is held by the cut: it arrives after this run.
    const leave = events.find(
      (e) => e.ev === "send" && e.from === "member-2" && e.type === "ConsumerGroupHeartbeatRequest" && e.t === 86_624_886,
    );
    expect(leave?.ev === "send" && leave.held === true && leave.at[0]).toBe(108_113_987);
    const states2 = observationsIn(events, "member.state", "member-2").map(({ t, o }) => ({
      t,
      from: o.from,
      to: o.to,
      epoch: o.memberEpoch,
    }));
    expect(states2.filter((s) => s.t >= 86_000_000 && s.t < 87_000_000).map((s) => `${s.from}->${s.to}`)).toEqual([
      "STABLE->PREPARE_LEAVING",
      "PREPARE_LEAVING->LEAVING",
      "LEAVING->STALE",
    ]);

    // From its rejoin at 93.3 s to the session timeout, every heartbeat is answered with a fencing: JOINING -> FENCED,
    // and at once FENCED -> JOINING again, at epoch 0.
    const removed = observationsIn(events, "gc.member-removed").filter(({ o }) => o.memberId === "X65qVZPkS764xVV1Fy8exg");
    expect(removed.map(({ t, o }) => `${t} ${o.reason} ${o.memberEpoch}`)).toEqual(["96587551 session-timeout 2"]);
    const window = states2.filter((s) => s.t >= 93_317_985 && s.t < 96_587_551);
    const fenced = window.filter((s) => s.from === "JOINING" && s.to === "FENCED");
    expect(fenced.length).toBe(1_637);
    expect(window.length).toBe(1 + 2 * 1_637); // STALE -> JOINING, then each fencing and its rejoin
    expect(window.every((s) => s.epoch === 0)).toBe(true);
    const heartbeats = events.filter(
      (e) =>
        e.ev === "send" && e.from === "member-2" && e.type === "ConsumerGroupHeartbeatRequest" && e.t >= 93_317_985 && e.t < 96_587_551,
    );
    expect(heartbeats.length).toBe(1_638); // the last one arrives as the old member expires, and joins
    // None of them changes the group: the coordinator keeps the old member, at epoch 2, until it expires.
    const accepted = observationsIn(events, "gc.member").filter(
      ({ t, o }) => o.memberId === "X65qVZPkS764xVV1Fy8exg" && t >= 93_317_985 && t < 96_587_551,
    );
    expect(accepted).toEqual([]);

    // The heartbeat that reaches the coordinator after the expiry joins: epoch 4, from 0.
    const joined = observationsIn(events, "gc.member").find(({ t, o }) => o.memberId === "X65qVZPkS764xVV1Fy8exg" && t >= 96_587_551);
    expect(joined && { t: joined.t, epoch: joined.o.memberEpoch, previous: joined.o.previousMemberEpoch }).toEqual({
      t: 96_587_551,
      epoch: 4,
      previous: 0,
    });
  }, 60_000);

  it("lets member-2 rejoin at once, at its old epoch and assignment, with kcsim.group.consumer.rejoin.at.epoch.zero (KAFKA-19233's fix)", async () => {
    const cluster = scenario.cluster;
    if (cluster === undefined) throw new Error("the fixture has a cluster");
    const fixed = {
      ...scenario,
      cluster: { ...cluster, broker: { ...cluster.broker, "kcsim.group.consumer.rejoin.at.epoch.zero": true } },
    };
    const { result } = await runScenario(fixed, { host: "inline", seed: 201831 });
    const events = result.log.toArray();
    const states2 = observationsIn(events, "member.state", "member-2").map(({ t, o }) => `${t} ${o.from}->${o.to} ${o.memberEpoch}`);
    expect(states2.filter((line) => Number(line.split(" ")[0]) >= 93_000_000)).toEqual([
      "93317985 STALE->JOINING 0",
      "93319891 JOINING->RECONCILING 2",
      "93319891 RECONCILING->ACKNOWLEDGING 2",
      "93319891 ACKNOWLEDGING->STABLE 2",
    ]);
    const owned2 = observationsIn(events, "member.owned", "member-2").filter(({ t }) => t >= 93_000_000);
    expect(owned2.map(({ t, o }) => [t, o.owned])).toEqual([[93_319_891, { swarm: [13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24] }]]);
    // Its old self is its new self: no session timeout removes member-2 (member-1, cut off until 105.7 s, expires).
    const removed = observationsIn(events, "gc.member-removed").map(({ t, o }) => `${t} ${o.memberId} ${o.reason}`);
    expect(removed).toEqual(["99143898 sBBjqHncS9WNZix1Jwtcgg session-timeout"]);
  }, 60_000);
});
