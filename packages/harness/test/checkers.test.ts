import type { JsonValue, Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { convergenceDeadlineUs } from "../src/checkers/converges.js";
import { CHECKERS, type HistoryEvent, type SimulationSpec } from "../src/index.js";
import { actor, testSpec } from "./helpers.js";

const obs = (t: number, who: string, o: Record<string, JsonValue>): HistoryEvent => ({ t, ev: "obs", actor: who, o: o as Observation });
const life = (t: number, who: string, what: string, detail: string | null = null): HistoryEvent => ({
  t,
  ev: "life",
  actor: who,
  what,
  detail,
});

const topics = [{ name: "T", id: "T-id", partitions: 2 }];
const member = (id: string, extra: Record<string, JsonValue> = {}) =>
  actor(id, "consumer", {
    consumer: { "group.id": "g", "max.poll.interval.ms": 1000, ...extra },
    subscription: ["T"],
    topics,
    bootstrap: ["coordinator-0"],
  });
const spec: SimulationSpec = testSpec({
  durationUs: 10_000_000,
  actors: [actor("coordinator-0", "group-coordinator", {}), member("a"), member("b")],
});

const check = (name: string, events: HistoryEvent[], s: SimulationSpec = spec) => {
  const checker = CHECKERS.get(name);
  if (checker === undefined) throw new Error(name);
  return checker.check(events, s);
};

const group = (t: number, epoch: number, assignmentEpoch: number, state = "STABLE") =>
  obs(t, "coordinator-0", { type: "gc.group", groupId: "g", protocol: "consumer", groupEpoch: epoch, assignmentEpoch, state, members: 2 });
/** A group's record at one epoch (a classic group's generation), its state and member count. */
const groupOf =
  (protocol: "classic" | "consumer") =>
  (t: number, epoch: number, members: number, state = "STABLE") =>
    obs(t, "coordinator-0", { type: "gc.group", groupId: "g", protocol, groupEpoch: epoch, assignmentEpoch: epoch, state, members });
/** A classic group's record at one generation, in a state, with two members. */
const classicGroup = (t: number, generation: number, groupState: string) =>
  obs(t, "coordinator-0", {
    type: "gc.group",
    groupId: "g",
    protocol: "classic",
    groupEpoch: generation,
    assignmentEpoch: generation,
    state: groupState,
    members: 2,
  });
/** A classic client's state change, at the generation its client holds. */
const classicState = (t: number, who: string, to: string, generation: number) =>
  obs(t, who, { type: "member.state", groupId: "g", memberId: `${who}-id`, protocol: "classic", from: "X", to, memberEpoch: generation });
const classic = groupOf("classic");
const consumer = groupOf("consumer");
const gcMember = (t: number, memberId: string, epoch: number, assigned: Record<string, number[]>, pending: Record<string, number[]> = {}) =>
  obs(t, "coordinator-0", {
    type: "gc.member",
    groupId: "g",
    memberId,
    instanceId: null,
    memberEpoch: epoch,
    previousMemberEpoch: epoch - 1,
    state: Object.keys(pending).length > 0 ? "UNREVOKED_PARTITIONS" : "STABLE",
    assigned,
    pendingRevocation: pending,
  });
const removed = (t: number, memberId: string) =>
  obs(t, "coordinator-0", {
    type: "gc.member-removed",
    groupId: "g",
    memberId,
    instanceId: null,
    memberEpoch: 3,
    reason: "session-timeout",
  });
/** The coordinator removes a member id, for a reason. */
const removedFor = (t: number, memberId: string, reason: string) =>
  obs(t, "coordinator-0", { type: "gc.member-removed", groupId: "g", memberId, instanceId: null, memberEpoch: 3, reason });
const owned = (t: number, who: string, partitions: number[], cause = "assigned") =>
  obs(t, who, {
    type: "member.owned",
    groupId: "g",
    memberId: `${who}-id`,
    memberEpoch: 1,
    owned: partitions.length ? { T: partitions } : {},
    cause,
  });
/** A gc.offset-commit of partitions T-0.. with these offsets and answers (one partition, T-0, by default). */
const commitOf = (t: number, memberId: string, epoch: number, offsets: number[], errorCodes: number[], transactional = false) =>
  obs(t, "coordinator-0", {
    type: "gc.offset-commit",
    groupId: "g",
    memberId,
    epoch,
    transactional,
    topics: [{ topic: "T", partitions: offsets.map((_, i) => i), offsets, errorCodes }],
  });
const commit = (t: number, memberId: string, epoch: number, offset: number, errorCode = 0, transactional = false) =>
  commitOf(t, memberId, epoch, [offset], [errorCode], transactional);
const poll = (t: number, who: string) => obs(t, who, { type: "member.poll", memberId: `${who}-id` });
/** The member's poll timer restarts: the top of a pass of poll()'s loop. */
const restart = (t: number, who: string) => obs(t, who, { type: "member.poll-timer-reset", memberId: `${who}-id` });
const state = (t: number, who: string, to: string, epoch = 1) =>
  obs(t, who, { type: "member.state", groupId: "g", memberId: `${who}-id`, protocol: "consumer", from: "X", to, memberEpoch: epoch });

/** A message sent on connection `conn` (+gen client to server, -gen back), delivered at `at` (none: dropped). */
const send = (t: number, from: string, to: string, type: string, at: number[], conn: number): HistoryEvent => ({
  t,
  ev: "send",
  from,
  to,
  type,
  bytes: 40,
  fate: at.length === 0 ? "drop" : "deliver",
  at,
  conn,
});
/** A client's close of its coordinator connection `gen` on a request timeout. */
const close = (t: number, who: string, gen: number): HistoryEvent => ({
  t,
  ev: "conn",
  actor: who,
  peer: "coordinator-0",
  gen,
  what: "close",
  connection: "coordinator",
  reason: "closed by its client: a request timed out",
});

describe("group checkers catch what they exist to catch", () => {
  it("revoke-before-reassign: flags a partition handed over while its owner still holds it", () => {
    const ok = [
      group(0, 1, 1),
      gcMember(1, "A", 1, { T: [0, 1] }),
      gcMember(2, "A", 1, { T: [0] }, { T: [1] }),
      gcMember(3, "A", 2, { T: [0] }),
      gcMember(4, "B", 2, { T: [1] }),
    ];
    expect(check("revoke-before-reassign", ok).ok).toBe(true);
    const bad = [
      group(0, 1, 1),
      gcMember(1, "A", 1, { T: [0, 1] }),
      gcMember(2, "A", 1, { T: [0] }, { T: [1] }),
      gcMember(3, "B", 2, { T: [1] }),
    ];
    const result = check("revoke-before-reassign", bad);
    expect(result.ok).toBe(false);
    expect(result.violations[0]?.message).toMatch(/T-1 given to B .* while A still holds it/);
    const afterFence = [group(0, 1, 1), gcMember(1, "A", 1, { T: [0, 1] }), removed(2, "A"), gcMember(3, "B", 2, { T: [0, 1] })];
    expect(check("revoke-before-reassign", afterFence).ok).toBe(true);
  });

  it("revoke-before-reassign: names every other holder, in the order they joined, and forgets what a member released", () => {
    const crowded = [
      group(0, 1, 1),
      gcMember(1, "A", 1, { T: [0] }),
      gcMember(2, "B", 1, { T: [1] }),
      gcMember(3, "C", 1, { T: [2] }, { T: [0] }),
      gcMember(4, "D", 2, { T: [0, 3] }),
    ];
    const result = check("revoke-before-reassign", crowded);
    expect(result.violations.map((v) => v.message)).toEqual([
      "group g: T-0 given to C (epoch 1) while A still holds it",
      "group g: T-0 given to D (epoch 2) while A still holds it",
      "group g: T-0 given to D (epoch 2) while C still holds it",
    ]);
    // A revoked T-0, C took it and gave it up again, and B was fenced: nobody else holds what D gets.
    const released = [
      group(0, 1, 1),
      gcMember(1, "A", 1, { T: [0] }),
      gcMember(2, "B", 1, { T: [1] }),
      gcMember(3, "C", 1, { T: [2] }),
      gcMember(4, "A", 2, {}),
      gcMember(5, "C", 2, { T: [2, 0] }),
      gcMember(6, "C", 3, { T: [2] }),
      removed(7, "B"),
      gcMember(8, "D", 3, { T: [0, 1, 3] }),
      gcMember(9, "A", 3, { T: [4] }),
    ];
    expect(check("revoke-before-reassign", released).ok).toBe(true);
  });

  it("single-owner: flags two live owners, not a fenced zombie or a crashed member", () => {
    const base = [life(0, "a", "start"), life(0, "b", "start"), owned(1, "a", [0, 1])];
    expect(check("single-owner", [...base, owned(2, "a", [0], "revoked"), owned(3, "b", [1])]).ok).toBe(true);
    const bad = check("single-owner", [...base, owned(3, "b", [1])]);
    expect(bad.ok).toBe(false);
    expect(bad.violations[0]?.message).toBe("T-1 owned by a and b at once");
    expect(check("single-owner", [...base, removed(2, "a-id"), owned(3, "b", [0, 1])]).ok).toBe(true);
    expect(check("single-owner", [...base, life(2, "a", "crash"), owned(3, "b", [0, 1])]).ok).toBe(true);
  });

  it("single-owner: a fenced zombie finishing an old reconciliation does not count until the coordinator admits it again", () => {
    const ownedAs = (t: number, who: string, memberId: string, partitions: number[]) =>
      obs(t, who, { type: "member.owned", groupId: "g", memberId, memberEpoch: 1, owned: { T: partitions }, cause: "assigned" });
    const base = [life(0, "a", "start"), life(0, "b", "start"), ownedAs(1, "a", "A1", [0])];
    // a is fenced (session timeout), b takes T-0, a (a zombie) then reports T-0 and T-1 as assigned: no conflict.
    const zombie = [...base, removed(2, "A1"), owned(3, "b", [0]), ownedAs(4, "a", "A1", [0, 1])];
    expect(check("single-owner", zombie).ok).toBe(true);
    // Once the coordinator admits a again (a new member id it reveals after the admission), it counts again.
    const readmitted = [...zombie, gcMember(5, "A2", 1, { T: [1] }), ownedAs(6, "a", "A2", [0, 1])];
    expect(check("single-owner", readmitted).violations[0]?.message).toBe("T-0 owned by b and a at once");
  });

  it("single-owner tells why an owner still held the partition: a conversion that took it as holding less, or its removed id admitted again", () => {
    const kinds = (events: HistoryEvent[], cited: readonly number[] | undefined) =>
      (cited ?? []).map((i) => {
        const e = events[i];
        return e?.ev === "obs" ? `${e.t} ${e.o.type}` : "";
      });
    const base = [life(0, "a", "start"), life(0, "b", "start"), owned(1, "a", [0, 1])];
    // An online upgrade converts a with its stored assignment, T-0 only (a refused SyncGroup, an emptied one...);
    // b, the new member, is given T-1, which a's client still owns.
    const converted = [...base, removedFor(2, "a-id", "group-converted"), gcMember(2, "a-id", 3, { T: [0] }), owned(3, "b", [1])];
    const upgrade = check("single-owner", converted).violations[0];
    expect(upgrade?.message).toBe(
      "T-1 owned by a and b at once: the online upgrade at 0.000 s took a as holding T-0 (the classic group's stored assignment) while its client still owned T-1",
    );
    expect(kinds(converted, upgrade?.events)).toEqual(["2 gc.member", "3 member.owned"]);
    // The same in a downgrade (the group's record says it is classic now): the member was taken as holding its target.
    const downgraded = [...base, classic(2, 3, 2), ...converted.slice(base.length)];
    expect(check("single-owner", downgraded).violations[0]?.message).toBe(
      "T-1 owned by a and b at once: the online downgrade at 0.000 s took a as holding T-0 (its target assignment) while its client still owned T-1",
    );
    // If a gave T-1 up after the conversion and was given it again, that story is over: no story told.
    const regained = [...converted.slice(0, -1), owned(3, "a", [0], "revoked"), owned(4, "a", [0, 1]), owned(5, "b", [1])];
    expect(check("single-owner", regained).violations[0]?.message).toBe("T-1 owned by a and b at once");
    // The coordinator removes a's member id (a timeout while it is cut off), b takes both, then a's id is admitted again.
    const readmitted = [...base, removedFor(2, "a-id", "rebalance-timeout"), owned(3, "b", [0, 1]), gcMember(4, "a-id", 4, {})];
    const again = check("single-owner", readmitted).violations[0];
    expect(again?.message).toBe(
      "T-0 owned by b and a at once: the coordinator removed a's member id at 0.000 s (rebalance-timeout) and admitted it again at 0.000 s, while its client still owned T-0, T-1",
    );
    expect(kinds(readmitted, again?.events)).toEqual(["2 gc.member-removed", "4 gc.member"]);
    // The same id admitted again answering a heartbeat a sent at 1 on connection 5, closed at 2 and delivered at 4:
    // the story names that request and the close, and cites them.
    const stale = [
      state(0, "a", "STABLE"),
      ...base,
      send(1, "a", "coordinator-0", "ConsumerGroupHeartbeatRequest", [4], 5),
      close(2, "a", 5),
      ...readmitted.slice(base.length),
      send(4, "coordinator-0", "a", "ConsumerGroupHeartbeatResponse", [5], -5),
    ].sort((x, y) => x.t - y.t);
    const told = check("single-owner", stale).violations[0];
    expect(told?.message).toBe(
      "T-0 owned by b and a at once: the coordinator removed a's member id at 0.000 s (rebalance-timeout) and admitted it again at 0.000 s, while its client still owned T-0, T-1; it admitted it answering a ConsumerGroupHeartbeat a sent at 0.000 s that arrived at 0.000 s on a connection a had closed at 0.000 s (closed by its client: a request timed out)",
    );
    expect(told?.events.map((i) => stale[i]?.ev)).toEqual(["send", "conn", "obs", "obs"]);
    expect(kinds(stale, told?.events).slice(2)).toEqual(["2 gc.member-removed", "4 gc.member"]);
    // On a connection still open when the request arrived: the plain story.
    expect(
      check(
        "single-owner",
        stale.filter((e) => e.ev !== "conn"),
      ).violations[0]?.message,
    ).toBe(again?.message);
    // A classic client's id admitted again into a consumer group (converted online): only a consumer group does that.
    const classicClient = (t: number, who: string) =>
      obs(t, who, {
        type: "member.state",
        groupId: "g",
        memberId: `${who}-id`,
        protocol: "classic",
        from: "X",
        to: "STABLE",
        memberEpoch: 1,
      });
    const intoGroup = (client: HistoryEvent, protocol: "classic" | "consumer") =>
      check("single-owner", [client, ...base, groupOf(protocol)(1, 2, 2), ...readmitted.slice(base.length)]).violations[0]?.message;
    expect(intoGroup(classicClient(0, "a"), "consumer")).toBe(
      `${again?.message}; a consumer group makes a member of a classic JoinGroup's member id it no longer has (GroupMetadataManager.classicGroupJoinToConsumerGroup), where a classic group answers UNKNOWN_MEMBER_ID`,
    );
    // The same client in a classic group, or a consumer-protocol client: no such clause.
    expect(intoGroup(classicClient(0, "a"), "classic")).toBe(again?.message);
    expect(intoGroup(state(0, "a", "STABLE"), "consumer")).toBe(again?.message);
    // A client that let go of what it owned before its id came back has nothing of that story left.
    const letGo = [...base, removedFor(2, "a-id", "rebalance-timeout"), owned(3, "a", [], "lost"), owned(4, "b", [0, 1])];
    expect(check("single-owner", [...letGo, gcMember(5, "a-id", 4, {}), owned(6, "a", [1])]).violations[0]?.message).toBe(
      "T-1 owned by b and a at once",
    );
  });

  it("single-owner tells a KIP-848 reconciliation completed after the coordinator's newer record of the member left a partition out", () => {
    const s = 1_000_000;
    const clientState = (t: number, protocol: string, to: string) =>
      obs(t, "a", { type: "member.state", groupId: "g", memberId: "a-id", protocol, from: "X", to, memberEpoch: 1 });
    // a reconciles from 2 s (to take T-1, say); at 3 s the coordinator's record of a (epoch 2) leaves T-1 out and
    // gives it to b; a's reconciliation completes at 5 s and takes T-1 anyway.
    const race = (protocol: string, reconcilingAt: number) => [
      life(0, "a", "start"),
      life(0, "b", "start"),
      clientState(0, protocol, "STABLE"),
      gcMember(1 * s, "a-id", 1, { T: [0] }),
      owned(1 * s, "a", [0]),
      clientState(reconcilingAt, protocol, "RECONCILING"),
      gcMember(3 * s, "a-id", 2, { T: [0] }),
      gcMember(3 * s, "b-id", 2, { T: [1] }),
      owned(4 * s, "b", [1]),
      owned(5 * s, "a", [0, 1]),
    ];
    const events = race("consumer", 2 * s);
    const told = check("single-owner", events).violations[0];
    expect(told?.message).toBe(
      "T-1 owned by b and a at once: a's client took T-1 at 5.000 s, completing a reconciliation it began at 2.000 s, after the coordinator's record of a at 3.000 s (epoch 2) had left it out: Kafka's consumer does not abort a reconciliation for a newer target (AbstractMembershipManager.maybeAbortReconciliation)",
    );
    expect(told?.events.map((i) => events[i]?.t)).toEqual([2 * s, 3 * s, 5 * s]);
    // A reconciliation that began after the record: not that story. Nor a classic client's (seed 4967's window).
    expect(check("single-owner", race("consumer", 3.5 * s)).violations[0]?.message).toBe("T-1 owned by b and a at once");
    expect(check("single-owner", race("classic", 2 * s)).violations[0]?.message).toBe("T-1 owned by b and a at once");
  });

  it("single-owner tells a cooperative classic client that rejoins still owning what a generation it missed gave away", () => {
    const s = 1_000_000;
    const ownedAt = (t: number, who: string, generation: number, partitions: number[]) =>
      obs(t, who, {
        type: "member.owned",
        groupId: "g",
        memberId: `${who}-id`,
        memberEpoch: generation,
        owned: { T: partitions },
        cause: "assigned",
      });
    // Generation 1: a owns T-0, b T-1. a is cut off; generation 2 completes without a (kept: static), and the
    // coordinator's record of a leaves T-0 out, which goes to b.
    const generation2 = (aRecord: number[], aRejoinsAt: number | null) => [
      life(0, "a", "start"),
      life(0, "b", "start"),
      classicGroup(1 * s, 1, "STABLE"),
      classicState(2 * s, "a", "STABLE", 1),
      ownedAt(2 * s, "a", 1, [0]),
      classicState(2 * s, "b", "STABLE", 1),
      ownedAt(2 * s, "b", 1, [1]),
      classicGroup(10 * s, 1, "PREPARING_REBALANCE"),
      ...(aRejoinsAt === null ? [] : [classicState(aRejoinsAt, "a", "PREPARING_REBALANCE", 1)]),
      classicState(11 * s, "b", "PREPARING_REBALANCE", 1),
      classicGroup(20 * s, 2, "COMPLETING_REBALANCE"),
      classicState(21 * s, "b", "COMPLETING_REBALANCE", 2),
      classicGroup(22 * s, 2, "STABLE"),
      gcMember(22 * s, "a-id", 2, { T: aRecord }),
      gcMember(22 * s, "b-id", 2, { T: [0, 1] }),
      classicState(23 * s, "b", "STABLE", 2),
      ownedAt(23 * s, "b", 2, [0, 1]),
    ];
    const rule =
      "a cooperative client keeps what it owns while it rejoins (ConsumerCoordinator.onJoinPrepare) and gives up what it lost only at its SyncGroup answer (onJoinComplete)";
    // Seed 4967's window: a rejoins after generation 2 and joins generation 3 still owning T-0.
    const late = (aRecord: number[], heldGeneration = 1) => [
      ...generation2(aRecord, null),
      classicState(30 * s, "a", "PREPARING_REBALANCE", heldGeneration),
      classicGroup(31 * s, 2, "PREPARING_REBALANCE"),
      classicState(31 * s, "b", "PREPARING_REBALANCE", 2),
      classicGroup(40 * s, 3, "COMPLETING_REBALANCE"),
      classicState(41 * s, "a", "COMPLETING_REBALANCE", 3),
    ];
    const events = late([]);
    const told = check("single-owner", events).violations[0];
    expect(told?.message).toBe(
      `T-0 owned by b and a at once: a's client joined generation 3 at 41.000 s still owning T-0, which it took at 2.000 s (generation 1) and the coordinator's record of a at 22.000 s (generation 2, which its client missed) had left out: ${rule}`,
    );
    expect(
      told?.events.map((i) => `${events[i]?.t} ${events[i]?.ev === "obs" ? (events[i] as { o: { type: string } }).o.type : ""}`),
    ).toEqual([`${2 * s} member.owned`, `${22 * s} gc.member`, `${41 * s} member.state`]);
    // Seed 148214's: a was rejoining before generation 2 completed, but its JoinGroup did not count (lost with a
    // coordinator's failover, say): the generation's record of a leaves T-0 out, and b takes it while a still rejoins.
    const rejoining = generation2([], 12 * s);
    expect(check("single-owner", rejoining).violations[0]?.message).toBe(
      `T-0 owned by a and b at once: a's client, rejoining since 12.000 s from generation 1 with no JoinGroup answer yet, still owned T-0, which it took at 2.000 s (generation 1) and the coordinator's record of a at 22.000 s (generation 2, which its client missed) had left out: ${rule}`,
    );
    // Not the story: a record that kept T-0 for a, a client that held the record's generation.
    expect(check("single-owner", late([0])).violations[0]?.message).toBe("T-0 owned by b and a at once");
    expect(check("single-owner", late([], 2)).violations[0]?.message).toBe("T-0 owned by b and a at once");
    expect(check("single-owner", generation2([0], 12 * s)).violations[0]?.message).toBe("T-0 owned by a and b at once");
  });

  it("single-owner: a late reconciliation revoked within the same instant counts only if its owner got records of the partition", () => {
    const records = (t: number, who: string, partition: number) =>
      obs(t, who, {
        type: "member.records",
        memberId: `${who}-id`,
        ranges: [{ topic: "T", partition, firstOffset: 0, lastOffset: 4, count: 5 }],
      });
    const base = [life(0, "a", "start"), life(0, "b", "start"), owned(1, "a", [0]), owned(2, "b", [1])];
    // a completes a held-up reconciliation with T-1 (given to b since) and revokes it again in the same step.
    const lateAndRevoked = [...base, owned(5, "a", [0, 1]), records(5, "a", 0), owned(5, "a", [0], "revoked"), owned(6, "b", [1])];
    expect(check("single-owner", lateAndRevoked).ok).toBe(true);
    // The same, but a is handed records of T-1 meanwhile: a real double ownership.
    const consumed = [...base, owned(5, "a", [0, 1]), records(5, "a", 1), owned(5, "a", [0], "revoked")];
    expect(check("single-owner", consumed).violations.map((v) => [v.t, v.message])).toEqual([[5, "T-1 owned by b and a at once"]]);
    // Still owned by both after the instant: reported at the time it began.
    const outlasts = [...base, owned(5, "a", [0, 1]), owned(7, "a", [0], "revoked")];
    expect(check("single-owner", outlasts).violations.map((v) => [v.t, v.message])).toEqual([[5, "T-1 owned by b and a at once"]]);
    // Resolved within the instant by the other owner letting go is no conflict either; at the end of the history one is.
    expect(check("single-owner", [...base, owned(5, "a", [0, 1]), owned(5, "b", [], "revoked")]).ok).toBe(true);
    expect(check("single-owner", [...base, owned(5, "a", [0, 1])]).ok).toBe(false);
  });

  describe("single-owner in a classic group: a static member a join phase left behind is a zombie of its old generation", () => {
    // Swarm seeds 1167 (cooperative) and 1551 (eager): a static member cut off from its coordinator
    // does not rejoin; the join phase completes without it (Kafka keeps a static member that did not
    // rejoin, with its old subscription), the leader gives its partitions to another member, and its
    // client, still at the old generation, keeps them until it hears ILLEGAL_GENERATION.
    const ownedAt = (t: number, who: string, generation: number, partitions: number[], cause = "assigned") =>
      obs(t, who, {
        type: "member.owned",
        groupId: "g",
        memberId: `${who}-id`,
        memberEpoch: generation,
        owned: partitions.length ? { T: partitions } : {},
        cause,
      });
    // Generation 1: a owns T-0, b owns T-1. A rebalance starts; b rejoins, a (static, cut off) does not.
    const generation1 = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      classicGroup(1, 1, "COMPLETING_REBALANCE"),
      classicState(2, "a", "STABLE", 1),
      ownedAt(2, "a", 1, [0]),
      classicState(2, "b", "STABLE", 1),
      ownedAt(2, "b", 1, [1]),
      classicGroup(3, 1, "STABLE"),
      classicGroup(10, 1, "PREPARING_REBALANCE"),
      classicState(11, "b", "PREPARING_REBALANCE", 1),
    ];
    // The join phase completes without a; the leader b gives itself T-0 as well.
    const leftBehind = [
      ...generation1,
      classicGroup(20, 2, "COMPLETING_REBALANCE"),
      classicState(21, "b", "COMPLETING_REBALANCE", 2),
      classicGroup(22, 2, "STABLE"),
      classicState(23, "b", "STABLE", 2),
      ownedAt(23, "b", 2, [0, 1]),
    ];

    it("does not count it while its client is at the old generation, even when it starts rejoining late", () => {
      expect(check("single-owner", leftBehind).ok).toBe(true);
      // Rejoining after the join phase it missed does not make it a member of that generation.
      expect(check("single-owner", [...leftBehind, classicState(30, "a", "PREPARING_REBALANCE", 1)]).ok).toBe(true);
    });

    it("counts it again once its client holds a generation at least the one it missed", () => {
      const rejoined = [
        ...leftBehind,
        classicState(30, "a", "PREPARING_REBALANCE", 1),
        classicGroup(31, 2, "PREPARING_REBALANCE"),
        classicState(31, "b", "PREPARING_REBALANCE", 2),
        classicGroup(40, 3, "COMPLETING_REBALANCE"),
        classicState(41, "a", "COMPLETING_REBALANCE", 3),
      ];
      expect(check("single-owner", rejoined).violations.map((v) => [v.t, v.message])).toEqual([[41, "T-0 owned by b and a at once"]]);
    });

    it("still flags a member whose JoinGroup counted in the new generation (cooperative: it keeps what it owns while rejoining)", () => {
      // a was rejoining when the join phase completed: its owned T-0 was in its subscription, so the leader
      // must not give T-0 to b (ConsumerCoordinator.validateCooperativeAssignment).
      const counted = [...generation1, classicState(12, "a", "PREPARING_REBALANCE", 1), ...leftBehind.slice(generation1.length)];
      expect(check("single-owner", counted).violations.map((v) => [v.t, v.message])).toEqual([[23, "T-0 owned by a and b at once"]]);
    });

    it("counts it again once a JoinGroup of it is answered in a group created anew, whose epochs start again", () => {
      // Swarm-migration seed 15921: a, cut off, was left behind by generation 2; then both members expire and the
      // emptied group moves to generation 3. A KIP-848 member's heartbeat makes Kafka delete the empty classic group
      // and create a consumer group (maybeDeleteEmptyClassicGroup), at epoch 1. a rejoins it as a classic member under
      // a new member id and is answered at epoch 1: a member again, though 1 < 2.
      const gone = [...leftBehind, removed(24, "a-id"), removed(24, "b-id"), classicGroup(24, 3, "EMPTY")];
      const newGroup = (t: number, epoch: number) =>
        obs(t, "coordinator-0", {
          type: "gc.group",
          groupId: "g",
          protocol: "consumer",
          groupEpoch: epoch,
          assignmentEpoch: epoch,
          state: "STABLE",
          members: 2,
        });
      const rejoin = [
        newGroup(30, 1),
        obs(31, "a", {
          type: "member.state",
          groupId: "g",
          memberId: "",
          protocol: "classic",
          from: "STABLE",
          to: "UNJOINED",
          memberEpoch: -1,
        }),
        obs(31, "a", { type: "member.owned", groupId: "g", memberId: "", memberEpoch: -1, owned: {}, cause: "lost" }),
        obs(31, "a", {
          type: "member.state",
          groupId: "g",
          memberId: "",
          protocol: "classic",
          from: "UNJOINED",
          to: "PREPARING_REBALANCE",
          memberEpoch: -1,
        }),
        newGroup(32, 1),
        gcMember(32, "a-new", 1, {}),
        obs(33, "a", {
          type: "member.state",
          groupId: "g",
          memberId: "a-new",
          protocol: "classic",
          from: "PREPARING_REBALANCE",
          to: "COMPLETING_REBALANCE",
          memberEpoch: 1,
        }),
        obs(34, "a", {
          type: "member.state",
          groupId: "g",
          memberId: "a-new",
          protocol: "classic",
          from: "COMPLETING_REBALANCE",
          to: "STABLE",
          memberEpoch: 1,
        }),
        obs(34, "a", { type: "member.owned", groupId: "g", memberId: "a-new", memberEpoch: 1, owned: { T: [1] }, cause: "assigned" }),
      ];
      // b (expired, its process gone quiet) still believes it owns T-0 and T-1; only a is live, and a owns T-1 alone.
      const rejoined = [...gone, ...rejoin, obs(40, "x", { type: "member.poll", memberId: "x" })];
      expect(check("single-owner", rejoined).ok).toBe(true);
      const healing = { ...spec, durationUs: 500_000_000, nemesis: [{ atUs: 25, actor: "a", control: { action: "pause" as const } }] };
      // Live ownership is what converges reads: T-1 is owned again at 34, T-0 has no live owner.
      expect(check("converges", rejoined, healing).violations[0]?.message).toMatch(/never reached STABLE with all 2 partitions owned/);
      const bothOwned = [
        ...rejoined.slice(0, -1),
        obs(35, "a", { type: "member.owned", groupId: "g", memberId: "a-new", memberEpoch: 1, owned: { T: [0, 1] }, cause: "assigned" }),
      ];
      expect(check("converges", bothOwned, healing).ok).toBe(true);
    });

    it("still flags two owners at the same generation, and a left-behind member whose generation is current again", () => {
      const sameGeneration = [...leftBehind, classicState(30, "a", "STABLE", 2), ownedAt(30, "a", 2, [0])];
      expect(check("single-owner", sameGeneration).violations.map((v) => [v.t, v.message])).toEqual([[30, "T-0 owned by b and a at once"]]);
      // A new coordinator loads generation 1 (the join phase of generation 2 was never written): a's client is current again.
      const reloaded = [...leftBehind, classicGroup(30, 1, "STABLE")];
      expect(check("single-owner", reloaded).violations.map((v) => [v.t, v.message])).toEqual([[30, "T-0 owned by b and a at once"]]);
    });
  });

  it("no-zombie-commits: flags accepted commits from removed members or at a stale epoch", () => {
    expect(check("no-zombie-commits", [gcMember(1, "A", 4, { T: [0] }), commit(2, "A", 4, 10)]).ok).toBe(true);
    expect(check("no-zombie-commits", [gcMember(1, "A", 4, { T: [0] }), commit(2, "A", 3, 10, 113)]).ok).toBe(true);
    expect(check("no-zombie-commits", [gcMember(1, "A", 4, { T: [0] }), commit(2, "A", 3, 10)]).violations[0]?.message).toMatch(
      /at epoch 3; its epoch is 4/,
    );
    expect(check("no-zombie-commits", [gcMember(1, "A", 4, { T: [0] }), removed(2, "A"), commit(3, "A", 4, 10)]).ok).toBe(false);
    // One commit of many partitions: only those it accepted count, and the violation names a few of them.
    const member = gcMember(1, "A", 4, { T: [0, 1, 2, 3, 4, 5, 6] });
    expect(check("no-zombie-commits", [member, commitOf(2, "A", 3, [1, 1, 1], [113, 113, 113])]).ok).toBe(true);
    expect(
      check("no-zombie-commits", [member, commitOf(2, "A", 3, [1, 1, 1, 1, 1, 1, 1], [0, 113, 0, 0, 0, 0, 0])]).violations.map(
        (v) => v.message,
      ),
    ).toEqual(["group g: accepted a commit of T-0, T-2, T-3, T-4 and 2 more from A at epoch 3; its epoch is 4"]);
  });

  it("no-zombie-commits: judges a transactional commit when it is accepted into the transaction, not when it becomes visible", () => {
    const txnOffset = (t: number, memberId: string, epoch: number, outcome: string) =>
      obs(t, "coordinator-0", {
        type: "gc.txn-offset",
        groupId: "g",
        memberId,
        epoch,
        transactionalId: "tx",
        producerId: 1,
        producerEpoch: 0,
        topic: "T",
        partition: 0,
        offset: 10,
        outcome,
        errorCode: 0,
      });
    // The COMMIT marker makes it visible later, when the member may rightly have moved on to a newer epoch.
    const visible = (t: number, memberId: string, epoch: number) => commit(t, memberId, epoch, 10, 0, true);
    const member = gcMember(1, "A", 4, { T: [0] });
    expect(
      check("no-zombie-commits", [member, txnOffset(2, "A", 4, "pending"), gcMember(3, "A", 5, { T: [0] }), visible(4, "A", 4)]).ok,
    ).toBe(true);
    expect(check("no-zombie-commits", [member, txnOffset(2, "A", 3, "pending")]).violations.map((v) => v.message)).toEqual([
      "group g: accepted a commit of T-0 from A at epoch 3; its epoch is 4",
    ]);
    expect(
      check("no-zombie-commits", [
        member,
        removed(2, "A"),
        txnOffset(3, "A", 4, "aborted"),
        txnOffset(4, "A", 4, "pending"),
      ]).violations.map((v) => v.message),
    ).toEqual(["group g: accepted a commit of T-0 from A, which is not a member"]);
  });

  it("committed-offsets-monotonic: flags a commit below the previous one", () => {
    expect(check("committed-offsets-monotonic", [commit(1, "A", 1, 5), commit(2, "B", 2, 9), commit(3, "B", 2, 3, 113)]).ok).toBe(true);
    expect(check("committed-offsets-monotonic", [commit(1, "A", 1, 5), commit(2, "B", 2, 4)]).violations[0]?.message).toMatch(
      /committed 4 after 5/,
    );
    // Each commit is judged against the partition's latest one, whoever made it.
    const climbing = [commit(1, "A", 1, 5), commit(2, "A", 1, 9), commit(3, "B", 2, 12), commit(4, "B", 2, 11), commit(5, "B", 2, 10)];
    expect(check("committed-offsets-monotonic", climbing).violations.map((v) => [v.message, v.events])).toEqual([
      ["group g: T-0 committed 11 after 12 (by B)", [2, 3]],
      ["group g: T-0 committed 10 after 11 (by B)", [3, 4]],
    ]);
    // Every accepted partition of a commit is judged on its own; a refused one is not.
    const partitions = [commitOf(1, "A", 1, [5, 5, 5], [0, 0, 0]), commitOf(2, "A", 1, [6, 4, 3], [0, 0, 113])];
    expect(check("committed-offsets-monotonic", partitions).violations.map((v) => [v.message, v.events])).toEqual([
      ["group g: T-1 committed 4 after 5 (by A)", [0, 1]],
    ]);
  });

  it("committed-offsets-monotonic: tells the OffsetCommit that carried a backward commit, and a close of its connection before it arrived", () => {
    const s = 1_000_000;
    // member a's commit of 5 is held on connection 3 from 10 s to 70 s; a closes that connection at 40 s, reconnects
    // (connection 4) and commits 9, answered; the held request arrives at 70 s and its write lands at 70.01 s.
    const retransmitted = [
      state(1 * s, "a", "STABLE"),
      send(10 * s, "a", "coordinator-0", "OffsetCommitRequest", [70 * s], 3),
      close(40 * s, "a", 3),
      send(45 * s, "a", "coordinator-0", "OffsetCommitRequest", [45.001 * s], 4),
      commit(45.011 * s, "a-id", 1, 9),
      send(45.011 * s, "coordinator-0", "a", "OffsetCommitResponse", [45.012 * s], -4),
      commit(70.01 * s, "a-id", 1, 5),
      send(70.01 * s, "coordinator-0", "a", "OffsetCommitResponse", [70.011 * s], -3),
    ];
    expect(check("committed-offsets-monotonic", retransmitted).violations.map((v) => [v.message, v.events])).toEqual([
      [
        "group g: T-0 committed 5 after 9 (by a-id); its OffsetCommit from a was sent at 10.000 s and arrived at 70.000 s, on a connection a had closed at 40.000 s (closed by its client: a request timed out)",
        [1, 2, 4, 6],
      ],
    ]);
    // The same commits on an open connection: the trip is told, with no close.
    const inOrder = retransmitted.filter((event) => event.ev !== "conn");
    expect(check("committed-offsets-monotonic", inOrder).violations.map((v) => [v.message, v.events])).toEqual([
      ["group g: T-0 committed 5 after 9 (by a-id); its OffsetCommit from a was sent at 10.000 s and arrived at 70.000 s", [1, 3, 5]],
    ]);
    // A close after the request arrived is not part of its trip.
    const closedLate = [...inOrder.slice(0, 5), close(70.005 * s, "a", 3), ...inOrder.slice(5)];
    expect(check("committed-offsets-monotonic", closedLate).violations[0]?.message).toMatch(/arrived at 70.000 s$/);
    // An answer answers the oldest unanswered request of its connection: another request of a's, on connection 4,
    // unanswered at 70.01 s, is not the carrier; nor is one that never arrives.
    const another = send(60 * s, "a", "coordinator-0", "OffsetCommitRequest", [60.001 * s], 4);
    const lost = send(50 * s, "a", "coordinator-0", "OffsetCommitRequest", [], 3);
    expect(
      check("committed-offsets-monotonic", [...inOrder.slice(0, 5), lost, another, ...inOrder.slice(5)]).violations.map((v) => [
        v.message,
        v.events,
      ]),
    ).toEqual([
      ["group g: T-0 committed 5 after 9 (by a-id); its OffsetCommit from a was sent at 10.000 s and arrived at 70.000 s", [1, 3, 7]],
    ]);
    // Two commits written in one flush: observations first, then answers, both in the order of the writes, so the
    // k-th commit of the instant goes with the k-th answer.
    const oneFlush = [
      ...inOrder.slice(0, 5),
      another,
      commit(70.01 * s, "a-id", 1, 5),
      commit(70.01 * s, "a-id", 1, 12),
      send(70.01 * s, "coordinator-0", "a", "OffsetCommitResponse", [70.011 * s], -3),
      send(70.01 * s, "coordinator-0", "a", "OffsetCommitResponse", [70.011 * s], -4),
    ];
    expect(check("committed-offsets-monotonic", oneFlush).violations.map((v) => v.message)).toEqual([
      "group g: T-0 committed 5 after 9 (by a-id); its OffsetCommit from a was sent at 10.000 s and arrived at 70.000 s",
    ]);
    const swapped = [...oneFlush.slice(0, 6), oneFlush[7], oneFlush[6], ...oneFlush.slice(8)] as HistoryEvent[];
    expect(check("committed-offsets-monotonic", swapped).violations.map((v) => v.message)).toEqual([
      "group g: T-0 committed 5 after 12 (by a-id); its OffsetCommit from a was sent at 60.000 s and arrived at 60.001 s",
    ]);
    // An answer that reports no commit (here a third answer in the instant) leaves the pairing unknown: no story.
    const unpaired = [...oneFlush, send(70.01 * s, "coordinator-0", "b", "OffsetCommitResponse", [70.011 * s], -5)];
    expect(check("committed-offsets-monotonic", unpaired).violations.map((v) => v.message)).toEqual([
      "group g: T-0 committed 5 after 9 (by a-id)",
    ]);
    // A commit in the run's last instant is told too.
    expect(check("committed-offsets-monotonic", retransmitted.slice(0, 7)).violations.map((v) => v.message)).toEqual([
      "group g: T-0 committed 5 after 9 (by a-id)",
    ]);
    expect(check("committed-offsets-monotonic", retransmitted).violations[0]?.message).toMatch(/closed by its client/);
    // Told at the next commit, after an instant with an answer and no commit, and another with both.
    const later = [
      ...retransmitted,
      send(74 * s, "a", "coordinator-0", "OffsetCommitRequest", [74.001 * s], 4),
      send(75 * s, "coordinator-0", "a", "OffsetCommitResponse", [75.001 * s], -4),
      send(79 * s, "a", "coordinator-0", "OffsetCommitRequest", [79.001 * s], 4),
      commit(80 * s, "a-id", 1, 20),
      send(80 * s, "coordinator-0", "a", "OffsetCommitResponse", [80.001 * s], -4),
      commit(90 * s, "a-id", 1, 19),
    ];
    expect(check("committed-offsets-monotonic", later).violations.map((v) => v.message)).toEqual([
      "group g: T-0 committed 5 after 9 (by a-id); its OffsetCommit from a was sent at 10.000 s and arrived at 70.000 s, on a connection a had closed at 40.000 s (closed by its client: a request timed out)",
      "group g: T-0 committed 19 after 20 (by a-id)",
    ]);

    // A transactional commit: the TxnOffsetCommit accepted (pending) at 20.01 s, on a connection closed before it
    // arrived, becomes the group's at the COMMIT marker (30 s), after a plain commit of 9.
    const pending = (t: number, producerId: number, outcome = "pending") =>
      obs(t, "coordinator-0", {
        type: "gc.txn-offset",
        groupId: "g",
        memberId: "a-id",
        epoch: 1,
        transactionalId: `tx-${producerId}`,
        producerId,
        producerEpoch: 0,
        topic: "T",
        partition: 0,
        offset: 5,
        outcome,
        errorCode: 0,
      });
    const transactional = [
      state(1 * s, "a", "STABLE"),
      send(10 * s, "a", "coordinator-0", "TxnOffsetCommitRequest", [20 * s], 3),
      close(15 * s, "a", 3),
      commit(18 * s, "a-id", 1, 9),
      pending(20.01 * s, 7),
      send(20.01 * s, "coordinator-0", "a", "TxnOffsetCommitResponse", [20.011 * s], -3),
      commit(30 * s, "a-id", 1, 5, 0, true),
    ];
    expect(check("committed-offsets-monotonic", transactional).violations.map((v) => [v.message, v.events])).toEqual([
      [
        "group g: T-0 committed 5 after 9 (by a-id); its TxnOffsetCommit from a was sent at 10.000 s and arrived at 20.000 s, on a connection a had closed at 15.000 s (closed by its client: a request timed out)",
        [1, 2, 3, 6],
      ],
    ]);
    // Dropped by an ABORT marker, the accepted offset is no carrier; two producers' matching offsets are two candidates.
    const aborted = [...transactional.slice(0, 6), pending(25 * s, 7, "aborted"), transactional[6] as HistoryEvent];
    expect(check("committed-offsets-monotonic", aborted).violations[0]?.message).toBe("group g: T-0 committed 5 after 9 (by a-id)");
    const twoProducers = [...transactional.slice(0, 6), pending(25 * s, 8), transactional[6] as HistoryEvent];
    expect(check("committed-offsets-monotonic", twoProducers).violations[0]?.message).toBe("group g: T-0 committed 5 after 9 (by a-id)");
    // A TxnOffsetCommit is reported per partition, so its carrier is the one request of a's process that has
    // arrived unanswered when it is accepted: with two, none is named.
    const txnRequest = (t: number, from: string, conn: number) =>
      send(t, from, "coordinator-0", "TxnOffsetCommitRequest", [t + 1000], conn);
    const withTxn = (extra: HistoryEvent[], events = transactional) =>
      [...events.slice(0, 4), ...extra, ...events.slice(4)].sort((x, y) => x.t - y.t);
    const told = /its TxnOffsetCommit from a was sent at 10.000 s/;
    expect(check("committed-offsets-monotonic", withTxn([txnRequest(19 * s, "a", 4)])).violations[0]?.message).toBe(
      "group g: T-0 committed 5 after 9 (by a-id)",
    );
    // Another process's request counts only when the member id was never seen in a member.state.
    expect(check("committed-offsets-monotonic", withTxn([txnRequest(19 * s, "b", 5)])).violations[0]?.message).toMatch(told);
    const unseen = transactional.slice(1);
    expect(check("committed-offsets-monotonic", withTxn([], unseen)).violations[0]?.message).toMatch(told);
    expect(check("committed-offsets-monotonic", withTxn([txnRequest(19 * s, "b", 5)], unseen)).violations[0]?.message).toBe(
      "group g: T-0 committed 5 after 9 (by a-id)",
    );
    // A coordinator that crashes answers none of the requests it held: they stop being candidates.
    const heldAtCrash = [txnRequest(5 * s, "a", 2), life(8 * s, "coordinator-0", "crash"), life(9 * s, "coordinator-0", "restart")];
    expect(check("committed-offsets-monotonic", withTxn(heldAtCrash)).violations[0]?.message).toMatch(told);
    expect(check("committed-offsets-monotonic", withTxn(heldAtCrash.filter((event) => event.ev !== "life"))).violations[0]?.message).toBe(
      "group g: T-0 committed 5 after 9 (by a-id)",
    );
  });

  it("committed-offsets-monotonic: tells an epoch-less commit into an empty group as an admin commit, with the removal of its member id", () => {
    const s = 1_000_000;
    // A's commit of 9 at generation or member epoch 1; A removed at 20 s, B at 30 s (the group empties); then a commit
    // of 5 with no epoch (-1) under A's member id, which Kafka takes from an empty group without a member check.
    const history = (protocol: "classic" | "consumer", last: HistoryEvent) => [
      groupOf(protocol)(1 * s, 1, 2),
      commit(10 * s, "A", 1, 9),
      groupOf(protocol)(20 * s, 2, 1),
      removed(20 * s, "A"),
      groupOf(protocol)(30 * s, 3, 0, "EMPTY"),
      removed(30 * s, "B"),
      groupOf(protocol)(31 * s, 3, 0, "EMPTY"),
      last,
    ];
    expect(
      check("committed-offsets-monotonic", history("consumer", commit(40 * s, "A", -1, 5))).violations.map((v) => [v.message, v.events]),
    ).toEqual([
      [
        "group g: T-0 committed 5 after 9 (by A); it carried member epoch -1 into a group empty since 30.000 s, where Kafka takes it with no member check, as an admin commit; A had been removed at 20.000 s (session-timeout)",
        [1, 3, 4, 7],
      ],
    ]);
    // A classic request carries a generation; a member id the coordinator never removed (an admin client's) has no
    // removal to tell.
    expect(
      check("committed-offsets-monotonic", history("classic", commit(40 * s, "", -1, 5))).violations.map((v) => [v.message, v.events]),
    ).toEqual([
      [
        "group g: T-0 committed 5 after 9 (by no member id); it carried generation -1 into a group empty since 30.000 s, where Kafka takes it with no member check, as an admin commit",
        [1, 4, 7],
      ],
    ]);
    // Members again (here B rejoined): no longer empty, so no admin story; nor for a commit with an epoch.
    const rejoined = [...history("consumer", groupOf("consumer")(35 * s, 4, 1)), commit(40 * s, "A", -1, 5)];
    expect(check("committed-offsets-monotonic", rejoined).violations.map((v) => v.message)).toEqual([
      "group g: T-0 committed 5 after 9 (by A)",
    ]);
    expect(check("committed-offsets-monotonic", history("consumer", commit(40 * s, "A", 3, 5))).violations.map((v) => v.message)).toEqual([
      "group g: T-0 committed 5 after 9 (by A)",
    ]);
  });

  it("epochs-monotonic: flags a group epoch going down and a member epoch dropping to anything but 0/-1/-2", () => {
    expect(check("epochs-monotonic", [group(1, 3, 3), group(2, 4, 3), group(3, 4, 4)]).ok).toBe(true);
    expect(check("epochs-monotonic", [group(1, 3, 3), group(2, 2, 3)]).ok).toBe(false);
    expect(check("epochs-monotonic", [state(1, "a", "STABLE", 5), state(2, "a", "JOINING", 0), state(3, "a", "STABLE", 6)]).ok).toBe(true);
    expect(check("epochs-monotonic", [state(1, "a", "STABLE", 5), state(2, "a", "STABLE", 4)]).ok).toBe(false);
    expect(check("epochs-monotonic", [gcMember(1, "A", 5, {}), gcMember(2, "A", 3, {})]).ok).toBe(false);
  });

  it("epochs-monotonic: a reloaded classic group may lose an unassigned generation, but not one handed out since it was created", () => {
    const loaded = (t: number) => obs(t, "coordinator-0", { type: "gc.loaded", records: 10, groups: 1 });
    const handedOut3 = [classic(1, 2, 1), gcMember(2, "A", 3, { t: [0] }), classic(3, 3, 1), classic(4, 4, 1, "PREPARING_REBALANCE")];
    // Generation 4's join phase was lost with the coordinator: reloading at 3 is Kafka's own behaviour; below 3 is not.
    expect(check("epochs-monotonic", [...handedOut3, loaded(5), classic(5, 3, 1)]).ok).toBe(true);
    expect(check("epochs-monotonic", [...handedOut3, loaded(5), classic(5, 2, 1)]).violations[0]?.message).toBe(
      "group g: reloaded at generation 2, below generation 3 whose assignments were handed out",
    );
    // swarm-migration seed 115: the KIP-848 group handed out epoch 3 and emptied; a classic member's JoinGroup
    // replaced it with a new classic group at generation 0 (Kafka's maybeDeleteEmptyConsumerGroup), whose join phase
    // a failover cut short. Its reload at generation 0 is no drop: the floor was the deleted group's.
    const consumer = [group(1, 3, 3), gcMember(2, "A", 3, { t: [0] }), group(3, 4, 3, "EMPTY")];
    const recreated = [...consumer, classic(4, 0, 0, "EMPTY"), classic(5, 0, 1, "PREPARING_REBALANCE")];
    expect(check("epochs-monotonic", [...recreated, loaded(6), classic(6, 0, 0, "EMPTY")]).ok).toBe(true);
    // What the new group hands out is its own floor.
    const newHandedOut = [...recreated, gcMember(6, "B", 1, { t: [0] }), classic(6, 1, 1), classic(7, 2, 1, "PREPARING_REBALANCE")];
    expect(check("epochs-monotonic", [...newHandedOut, loaded(8), classic(8, 1, 1)]).ok).toBe(true);
    expect(check("epochs-monotonic", [...newHandedOut, loaded(8), classic(8, 0, 0, "EMPTY")]).violations[0]?.message).toBe(
      "group g: reloaded at generation 0, below generation 1 whose assignments were handed out",
    );
  });

  it("epochs-monotonic: a group of the other protocol in place of an empty one starts anew; a converted group keeps its epoch", () => {
    // swarm-migration seed 335: the classic group emptied at generation 3 and the first KIP-848 member's heartbeat
    // made Kafka delete it and create a consumer group (maybeDeleteEmptyClassicGroup), at epoch 1 once it joined.
    expect(check("epochs-monotonic", [classic(1, 3, 1, "STABLE"), classic(2, 3, 0, "EMPTY"), consumer(3, 1, 1)]).ok).toBe(true);
    // A group with members is converted online, keeping its epoch (ConsumerGroup.fromClassicGroup): a drop is a bug.
    expect(check("epochs-monotonic", [classic(1, 3, 1, "STABLE"), consumer(2, 1, 2)]).violations[0]?.message).toBe(
      "group g: group epoch went from 3 down to 1",
    );
    // Within one protocol an empty group keeps its epochs.
    expect(check("epochs-monotonic", [consumer(1, 3, 1), consumer(2, 4, 0), consumer(3, 1, 1)]).ok).toBe(false);
  });

  it("converges: passes once the group is STABLE and fully owned, fails when it never gets there", () => {
    const short = { ...spec, durationUs: 500_000_000 };
    const good = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      group(1, 1, 1, "RECONCILING"),
      owned(2, "a", [0]),
      owned(3, "b", [1]),
      group(4, 1, 1, "STABLE"),
    ];
    expect(check("converges", good, short).ok).toBe(true);
    const stuck = [life(0, "a", "start"), life(0, "b", "start"), group(1, 1, 1, "STABLE"), owned(2, "a", [0])];
    expect(check("converges", stuck, short).violations[0]?.message).toMatch(/never reached STABLE with all 2 partitions owned/);
    // A run that ends before the bound has passed cannot say the group would not converge in time: not judged, not a pass.
    const tooShort = check("converges", stuck, { ...spec, durationUs: 60_000_000 });
    expect(tooShort.ok).toBe(true);
    expect(tooShort.notJudged).toMatch(/group g had not converged when the run ended at 60000000 us, before its bound/);
    // Converging late is still a violation, whatever the run's length.
    const late = [...stuck, owned(410_000_000, "b", [1])];
    expect(check("converges", late, short).violations[0]?.message).toMatch(/converged only at 410000000 us, after its bound/);
    // The bound the checker judges by, which a hunt runs an unsettled drawn seed on to.
    const deadline = convergenceDeadlineUs(short);
    expect(check("converges", stuck, { ...spec, durationUs: deadline ?? 0 }).ok).toBe(false);
    expect(check("converges", stuck, { ...spec, durationUs: (deadline ?? 0) - 1 }).notJudged).toMatch(/before its bound/);
  });

  it("converges: a group left with consumers stopped by a fatal error only cannot converge (not judged); any other live member counts", () => {
    // The faults heal at 5 s (a pause of a), after the group first settled.
    const healing = { ...spec, durationUs: 500_000_000, nemesis: [{ atUs: 5_000_000, actor: "a", control: { action: "pause" as const } }] };
    const fatal = (t: number, who: string) =>
      obs(t, who, { type: "member.fatal", groupId: "g", memberId: `${who}-id`, error: "UNRELEASED_INSTANCE_ID" });
    const settled = [life(0, "a", "start"), life(0, "b", "start"), group(1, 1, 1, "STABLE"), owned(2, "a", [0]), owned(3, "b", [1])];
    // Both restart (static members, before their old incarnations' sessions ran out) and are refused for good.
    const refusedA = [life(6_000_000, "a", "crash"), life(7_000_000, "a", "restart"), fatal(8_000_000, "a")];
    const refusedB = [life(9_000_000, "b", "crash"), life(10_000_000, "b", "restart"), fatal(11_000_000, "b")];
    const dead = check("converges", [...settled, ...refusedA, ...refusedB, group(12_000_000, 2, 1, "EMPTY")], healing);
    expect(dead.ok).toBe(true);
    expect(dead.notJudged).toBe(
      "group g has no live member but consumers stopped by a fatal error (a: UNRELEASED_INSTANCE_ID, b: UNRELEASED_INSTANCE_ID), so it cannot converge",
    );
    // Only a is refused: the group must converge with b, and does not.
    const oneFatal = [...settled, ...refusedA, group(9_000_000, 2, 2, "RECONCILING")];
    expect(check("converges", oneFatal, healing).violations[0]?.message).toMatch(/never reached STABLE with all 2 partitions owned/);
    // A fatal consumer whose process restarts is a member again.
    const restarted = [...settled, ...refusedA, ...refusedB, life(12_000_000, "b", "crash"), life(13_000_000, "b", "restart")];
    expect(check("converges", [...restarted, group(14_000_000, 2, 2, "RECONCILING")], healing).violations[0]?.message).toMatch(
      /never reached STABLE with all 2 partitions owned/,
    );
  });

  it("converges: a consumer told to close is gone, so closing old processes beside FATAL replacements cannot converge either", () => {
    // Swarm-migration seed 23244: each static member is replaced by a KIP-848 consumer and its old process told to close;
    // both replacements are refused for good (UNRELEASED_INSTANCE_ID), the old processes run on, closing. The faults
    // heal at 10 s (a pause of a).
    const healing = {
      ...spec,
      durationUs: 500_000_000,
      nemesis: [{ atUs: 10_000_000, actor: "a", control: { action: "pause" as const } }],
    };
    const fatal = (t: number, who: string) =>
      obs(t, who, { type: "member.fatal", groupId: "g", memberId: `${who}-id`, error: "UNRELEASED_INSTANCE_ID" });
    const settled = [life(0, "a", "start"), life(0, "b", "start"), group(1, 1, 1, "STABLE"), owned(2, "a", [0]), owned(3, "b", [1])];
    const replaced = (t: number, who: string) => [life(t, who, "command", "close"), life(t + 500_000, `${who}-r`, "start")];
    const bothRefused = [
      ...settled,
      ...replaced(6_000_000, "a"),
      fatal(7_000_000, "a-r"),
      ...replaced(8_000_000, "b"),
      fatal(9_000_000, "b-r"),
      group(12_000_000, 2, 1, "EMPTY"),
    ];
    const topology = { ...healing, actors: [...healing.actors, member("a-r"), member("b-r")] };
    const dead = check("converges", bothRefused, topology);
    expect(dead.ok).toBe(true);
    expect(dead.notJudged).toBe(
      "group g has no live member but consumers stopped by a fatal error (a-r: UNRELEASED_INSTANCE_ID, b-r: UNRELEASED_INSTANCE_ID), so it cannot converge",
    );
    // Only a is replaced and refused: b, never told to close, must converge, and does not.
    const oneClosed = [...settled, ...replaced(6_000_000, "a"), fatal(7_000_000, "a-r"), group(9_000_000, 2, 2, "RECONCILING")];
    expect(check("converges", oneClosed, topology).violations[0]?.message).toMatch(/never reached STABLE/);
    // A command other than close leaves a member in its group.
    const paused = [...settled, life(6_000_000, "a", "command", "pause-app"), fatal(7_000_000, "b"), group(9_000_000, 2, 2, "RECONCILING")];
    expect(check("converges", paused, healing).violations[0]?.message).toMatch(/never reached STABLE/);
  });

  it("converges tells an assignment the coordinator made answering a request whose connection its client had closed", () => {
    const s = 1_000_000;
    const healing = { ...spec, durationUs: 500 * s, nemesis: [{ atUs: 5 * s, actor: "a", control: { action: "pause" as const } }] };
    const settled = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      state(0, "a", "STABLE"),
      state(0, "b", "STABLE"),
      group(1, 1, 1, "STABLE"),
      gcMember(1, "a-id", 1, { T: [0] }),
      gcMember(1, "b-id", 1, { T: [] }),
      owned(2, "a", [0]),
    ];
    // b's heartbeat of 7 s rides connection 5, held until 20 s; b closes connection 5 at 8 s. The coordinator
    // answers it at 20.01 s, giving b T-1, and the answer goes back on connection 5.
    const stale = [
      ...settled,
      send(7 * s, "b", "coordinator-0", "ConsumerGroupHeartbeatRequest", [20 * s], 5),
      close(8 * s, "b", 5),
      gcMember(20.01 * s, "b-id", 2, { T: [1] }),
      send(20.01 * s, "coordinator-0", "b", "ConsumerGroupHeartbeatResponse", [20.011 * s], -5),
    ];
    const message = (events: HistoryEvent[]) => check("converges", events, healing).violations[0]?.message ?? "";
    expect(message(stale)).toMatch(
      /: T-1 assigned to b, whose client owns nothing; the coordinator made that assignment at 20\.010 s, answering a ConsumerGroupHeartbeat b sent at 7\.000 s that arrived at 20\.000 s on a connection b had closed at 8\.000 s \(closed by its client: a request timed out\), so its answer went to a closed connection$/,
    );
    // It cites the request and the close besides the group's record and the assignment.
    const cited = check("converges", stale, healing).violations[0]?.events ?? [];
    expect(cited.map((i) => stale[i]).map((e) => (e?.ev === "obs" ? e.o.type : `${e?.ev} ${e?.ev === "send" ? e.type : ""}`))).toEqual([
      "gc.group",
      "send ConsumerGroupHeartbeatRequest",
      "conn ",
      "gc.member",
    ]);
    const plain = /: T-1 assigned to b, whose client owns nothing$/;
    // Closed after the request arrived: the answer rode a connection still open then, and there is nothing to tell.
    const closedLate = stale.map((e) => (e.ev === "conn" ? close(20.005 * s, "b", 5) : e)).sort((x, y) => x.t - y.t);
    expect(message(closedLate)).toMatch(plain);
    // On an open connection: the ordinary case.
    expect(message(stale.filter((e) => e.ev !== "conn"))).toMatch(plain);
    // Two answers to b in that instant (another heartbeat, on b's new connection 6): which one carried the record is
    // not known, so none is told.
    const two = [
      ...stale.slice(0, -2),
      send(19.9 * s, "b", "coordinator-0", "ConsumerGroupHeartbeatRequest", [19.95 * s], 6),
      ...stale.slice(-2),
      send(20.01 * s, "coordinator-0", "b", "ConsumerGroupHeartbeatResponse", [20.011 * s], -6),
    ];
    expect(message(two)).toMatch(plain);
  });

  it("converges tells a group that never converged: the partitions without a live owner, whom the coordinator has them assigned to", () => {
    const healing = { ...spec, durationUs: 500_000_000, nemesis: [{ atUs: 5_000_000, actor: "a", control: { action: "pause" as const } }] };
    const settled = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      group(1, 1, 1, "STABLE"),
      gcMember(1, "a-id", 1, { T: [0] }),
      gcMember(1, "b-id", 1, { T: [1] }),
      owned(2, "a", [0]),
      owned(3, "b", [1]),
    ];
    // After the heal b's client loses T-1 (say, a poll timeout) while the coordinator keeps it assigned to b.
    const lost = [...settled, group(6_000_000, 2, 1, "RECONCILING"), owned(6_000_000, "b", [], "lost")];
    const told = (events: HistoryEvent[]) => check("converges", events, healing).violations[0]?.message.split("; ")[1];
    expect(told(lost)).toBe(
      "at the run's end T-1 had no live owner, and the coordinator's consumer group is RECONCILING at epoch 2: T-1 assigned to b, whose client owns nothing",
    );
    const fatal = obs(7_000_000, "b", { type: "member.fatal", groupId: "g", memberId: "b-id", error: "GROUP_MAX_SIZE_REACHED" });
    expect(told([...lost, fatal])).toMatch(/T-1 assigned to b, whose consumer failed \(GROUP_MAX_SIZE_REACHED\)$/);
    expect(told([...lost, life(7_000_000, "b", "command", "close")])).toMatch(/T-1 assigned to b, which was told to close$/);
    // The coordinator removes b: T-1 is assigned to no member.
    expect(told([...lost, removed(7_000_000, "b-id")])).toMatch(/: T-1 assigned to no member$/);
    // A coordinator's crash loses what it said until it loads the group again.
    expect(told([...lost, life(7_000_000, "coordinator-0", "crash")])).toBe(
      "at the run's end T-1 had no live owner, and the coordinator has no record of the group: T-1 assigned to no member",
    );
    // A classic member a join phase left behind still holds what the coordinator last gave it, but is no live member.
    const leftBehind = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      classicGroup(1, 1, "STABLE"),
      gcMember(1, "a-id", 1, { T: [0] }),
      gcMember(1, "b-id", 1, { T: [1] }),
      classicState(2, "a", "STABLE", 1),
      classicState(2, "b", "STABLE", 1),
      owned(2, "a", [0]),
      owned(3, "b", [1]),
      classicGroup(6_000_000, 1, "PREPARING_REBALANCE"),
      classicState(6_000_001, "a", "PREPARING_REBALANCE", 1),
      classicGroup(6_000_002, 2, "COMPLETING_REBALANCE"),
    ];
    expect(told(leftBehind)).toMatch(
      /: T-1 assigned to b, whose client owns T-1 but is no live member \(fenced, or left behind by a join phase\)$/,
    );
    // The story's events: the group's last record and b's assignment.
    const cited = check("converges", lost, healing).violations[0]?.events ?? [];
    expect(cited.map((i) => lost[i]).map((e) => (e?.ev === "obs" ? `${e.t} ${e.o.type}` : ""))).toEqual([
      "1 gc.member",
      "6000000 gc.group",
    ]);
    // A downgrade builds the classic group from the consumer group's target assignment: when that lagged the group
    // epoch (a member's removal not yet assigned), the story says the target was behind.
    const consumerAt = (t: number, epoch: number, assignmentEpoch: number, members: number) =>
      obs(t, "coordinator-0", {
        type: "gc.group",
        groupId: "g",
        protocol: "consumer",
        groupEpoch: epoch,
        assignmentEpoch,
        state: "ASSIGNING",
        members,
      });
    const downgrade = (groupRecord: HistoryEvent) => [
      ...settled,
      removed(6_000_000, "a-id"),
      groupRecord,
      classicGroup(7_000_000, 3, "STABLE"),
      removedFor(7_000_000, "b-id", "group-converted"),
      gcMember(7_000_000, "b-id", 3, { T: [1] }),
      life(8_000_000, "a", "crash"),
    ];
    expect(told(downgrade(consumerAt(6_000_000, 3, 2, 1)))).toMatch(
      /^at the run's end T-0 had no live owner, and the coordinator's classic group is STABLE at epoch 3, converted online at 7\.000 s from a consumer group whose target assignment \(epoch 2\) was behind its group epoch 3: T-0 assigned to no member$/,
    );
    expect(told(downgrade(consumerAt(6_000_000, 3, 3, 1)))).toMatch(/, converted online at 7\.000 s: T-0 assigned to no member$/);
  });

  it("converges tells partitions a crashed static member still claims: a classic group assigns them to no member", () => {
    const s = 1_000_000;
    const healing = { ...spec, durationUs: 500 * s, nemesis: [{ atUs: 5 * s, actor: "a", control: { action: "pause" as const } }] };
    /** The coordinator's record of a member at a generation; static when it has an instance id. */
    const record = (t: number, memberId: string, generation: number, partitions: number[], instanceId: string | null) =>
      obs(t, "coordinator-0", {
        type: "gc.member",
        groupId: "g",
        memberId,
        instanceId,
        memberEpoch: generation,
        previousMemberEpoch: generation - 1,
        state: "STABLE",
        assigned: partitions.length ? { T: partitions } : {},
        pendingRevocation: {},
      });
    const ownedAs = (t: number, who: string, memberId: string, partitions: number[]) =>
      obs(t, who, {
        type: "member.owned",
        groupId: "g",
        memberId,
        memberEpoch: 2,
        owned: partitions.length ? { T: partitions } : {},
        cause: "assigned",
      });
    // a (static) owns T-0 and T-1; b joins, a rejoins claiming both and crashes before the answer; generation 2
    // keeps a with that claim, gives it T-0, and leaves T-1 (moving to b) out.
    const story = (instanceId: string | null, joinArrives = true) => [
      life(0, "a", "start"),
      life(0, "b", "start"),
      classicState(1 * s, "a", "STABLE", 1),
      classic(1 * s, 1, 1, "STABLE"),
      record(1 * s, "a-id", 1, [0, 1], instanceId),
      owned(2 * s, "a", [0, 1]),
      classic(4 * s, 1, 2, "PREPARING_REBALANCE"),
      send(6 * s, "b", "coordinator-0", "JoinGroupRequest", [6.001 * s], 2),
      send(7 * s, "a", "coordinator-0", "JoinGroupRequest", joinArrives ? [7.001 * s] : [], 1),
      life(8 * s, "a", "crash"),
      classic(10 * s, 2, 2, "STABLE"),
      record(10 * s, "a-id", 2, [0], instanceId),
      record(10 * s, "b-id", 2, [], null),
    ];
    const told = (events: HistoryEvent[]) =>
      check("converges", events, healing).violations[0]?.message.split(", and ").slice(1).join(", and ");
    const claim =
      "T-1 assigned to no member: a's client named it among the partitions it owned in the JoinGroup it sent at 7.000 s and crashed at 8.000 s; the coordinator kept a, a static member, with that subscription in generation 2 (10.000 s), as Kafka keeps a static member that has not rejoined (completeClassicGroupJoin removes only dynamic ones), and a cooperative assignment leaves out a partition moving away from the member that claims it until that member revokes it and rejoins (ConsumerCoordinator.onJoinComplete)";
    const crashed = story("a");
    expect(told(crashed)).toBe(`the coordinator's classic group is STABLE at epoch 2: T-0 assigned to a, which is down; ${claim}`);
    const cited = check("converges", crashed, healing).violations[0]?.events ?? [];
    expect(cited.map((i) => crashed[i]).map((e) => `${e?.t} ${e?.ev === "obs" ? e.o.type : e?.ev}`)).toEqual([
      `${7 * s} send`,
      `${8 * s} life`,
      `${10 * s} gc.group`,
      `${10 * s} gc.member`,
    ]);
    // Its new process joins under the instance id with no new generation: the group stays as it is.
    const replaced = [
      ...crashed,
      life(20 * s, "a", "restart"),
      removedFor(21 * s, "a-id", "static-replaced"),
      record(21 * s, "a-new", 2, [0], "a"),
      ownedAs(21.1 * s, "a", "a-new", [0]),
    ];
    expect(told(replaced)).toBe(
      `the coordinator's classic group is STABLE at epoch 2: ${claim}; a's new process joined at 21.000 s under its instance id, which Kafka answers in a STABLE group with the member's current assignment and no rebalance (GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin)`,
    );
    // A generation after the replacement would have been another assignment: the rejoin clause is not told.
    expect(told([...replaced, classic(30 * s, 3, 2, "STABLE"), record(30 * s, "a-new", 3, [0], "a")])).toBe(
      `the coordinator's classic group is STABLE at epoch 3: ${claim}`,
    );
    // Not the story: a dynamic member, a JoinGroup that never arrived, a member the coordinator removed since.
    const plain = /: T-0 assigned to a, which is down; T-1 assigned to no member$/;
    expect(told(story(null))).toMatch(plain);
    expect(told(story("a", false))).toMatch(plain);
    expect(told([...crashed, removedFor(40 * s, "a-id", "session-timeout")])).toMatch(/: T-0, T-1 assigned to no member$/);
    // Nor a JoinGroup whose coordinator went down before a generation wrote it: the group a new coordinator loads
    // has the member's subscription of its last generation.
    const joined = crashed.findIndex((e) => e.ev === "send" && e.from === "a");
    const failover = [life(7.5 * s, "coordinator-0", "crash"), life(7.6 * s, "coordinator-0", "restart")];
    expect(told([...crashed.slice(0, joined + 1), ...failover, ...crashed.slice(joined + 1)])).toMatch(plain);
    // After it did, the failover changes nothing: the new coordinator loads generation 2 with that subscription.
    const reloaded = [
      ...crashed,
      life(11 * s, "coordinator-0", "crash"),
      life(11.1 * s, "coordinator-0", "restart"),
      classic(12 * s, 2, 2, "STABLE"),
      record(12 * s, "a-id", 2, [0], "a"),
      record(12 * s, "b-id", 2, [], null),
    ];
    expect(told(reloaded)).toBe(
      `the coordinator's classic group is STABLE at epoch 2: T-0 assigned to a, which is down; ${claim.replace("(10.000 s)", "(12.000 s)")}`,
    );
  });

  it("converges: a group settled before the faults heal converges at the first event after the heal, whatever its kind", () => {
    const healing = { ...spec, durationUs: 500_000_000, nemesis: [{ atUs: 5_000_000, actor: "a", control: { action: "pause" as const } }] };
    const settled = [life(0, "a", "start"), life(0, "b", "start"), group(1, 1, 1, "STABLE"), owned(2, "a", [0]), owned(3, "b", [1])];
    // Nothing after the heal but polls (which converges does not read): the first one is where the group converged.
    expect(check("converges", [...settled, poll(410_000_000, "a")], healing).violations[0]?.message).toMatch(
      /converged only at 410000000 us, after its bound/,
    );
    expect(check("converges", [...settled, poll(6_000_000, "a"), poll(410_000_000, "b")], healing).ok).toBe(true);
  });

  it("poll-expiry: the timer restarts at the top of each pass of poll()'s loop, not when poll() returns", () => {
    const handed = (t: number) =>
      obs(t, "a", {
        type: "member.records",
        memberId: "a-id",
        ranges: [{ topic: "T", partition: 0, firstOffset: t, lastOffset: t, count: 1 }],
      });
    const coordinator = (t: number) =>
      obs(t, "a", { type: "member.coordinator", groupId: "g", memberId: "a-id", coordinator: "coordinator-0" });
    const s = { ...spec, durationUs: 5_000_000 };
    const base = [life(0, "a", "start"), state(0, "a", "STABLE"), coordinator(0)];
    // Each poll() begins a pass 0.8 s after the last and returns records 0.1 s later: no expiry is due.
    const passes = [0, 800_000, 1_600_000, 2_400_000, 3_200_000, 4_000_000, 4_800_000];
    const busy = passes.flatMap((t) => [restart(t, "a"), handed(t + 100_000)]);
    expect(check("poll-expiry", [...base, ...busy], s).ok).toBe(true);
    // The same polls but one pass (its records still returned): a gap of 1.6 s that must hold an expiry.
    const withoutPass = busy.filter(
      (event) => !(event.t === 2_400_000 && event.ev === "obs" && event.o.type === "member.poll-timer-reset"),
    );
    expect(check("poll-expiry", [...base, ...withoutPass], s).violations[0]?.message).toMatch(/expired 0 times/);
    // Returns alone restart nothing.
    expect(check("poll-expiry", [...base, ...passes.map(handed)], s).violations[0]?.message).toMatch(/expired 0 times/);
  });

  it("poll-expiry: requires exactly one expiry per gap over max.poll.interval.ms, at the right time", () => {
    const expire = (t: number, last: number) =>
      obs(t, "a", { type: "member.poll-timeout", groupId: "g", memberId: "a-id", lastPollUs: last, maxPollIntervalMs: 1000 });
    const coordinator = (t: number, id: string | null) =>
      obs(t, "a", { type: "member.coordinator", groupId: "g", memberId: "a-id", coordinator: id });
    const s = { ...spec, durationUs: 5_000_000 };
    const base = [life(0, "a", "start"), state(0, "a", "STABLE"), coordinator(0, "coordinator-0"), restart(0, "a"), restart(500_000, "a")];
    const later = [restart(3_000_000, "a"), restart(3_500_000, "a"), restart(4_000_000, "a"), restart(4_500_000, "a")];
    expect(check("poll-expiry", [...base, expire(1_500_000, 500_000), ...later], s).ok).toBe(true);
    expect(check("poll-expiry", [...base, ...later], s).violations[0]?.message).toMatch(/expired 0 times/);
    expect(
      check("poll-expiry", [...base, expire(1_200_000, 500_000), restart(1_300_000, "a")], { ...s, durationUs: 1_400_000 }).violations[0]
        ?.message,
    ).toMatch(/before max.poll.interval.ms/);
    expect(check("poll-expiry", [...base, expire(2_500_000, 500_000), ...later], s).violations[0]?.message).toMatch(
      /was due at 1500000 us/,
    );
    // Without a coordinator the poll timer is not checked: the expiry waits for the rediscovery...
    const lost = [...base, coordinator(1_000_000, null), coordinator(2_000_000, "coordinator-0")];
    expect(check("poll-expiry", [...lost, expire(2_000_000, 500_000), ...later], s).ok).toBe(true);
    expect(check("poll-expiry", [...lost, expire(1_500_000, 500_000), ...later], s).ok).toBe(false);
    // As the member really records it: the rediscovery, the expiry and the leave it causes share one instant.
    const leaving = [
      state(2_000_000, "a", "PREPARE_LEAVING", -1),
      state(2_000_000, "a", "LEAVING", -1),
      state(2_000_000, "a", "STALE", -1),
    ];
    expect(check("poll-expiry", [...lost, expire(2_000_000, 500_000), ...leaving, ...later], s).ok).toBe(true);
    // A session check that drops the coordinator at the very deadline comes before the poll check: the expiry waits.
    const droppedAtDeadline = [...base, coordinator(1_500_000, null), coordinator(1_525_000, "coordinator-0")];
    expect(check("poll-expiry", [...droppedAtDeadline, expire(1_525_000, 500_000), ...later], s).ok).toBe(true);
    expect(check("poll-expiry", [...droppedAtDeadline, expire(1_600_000, 500_000), ...later], s).ok).toBe(false);
    // ...and never comes if the member polls again first.
    const neverFound = [...base, coordinator(1_000_000, null), ...later];
    expect(check("poll-expiry", neverFound, s).ok).toBe(true);
    // Swarm seeds 16 and 18: the application was blocked in commitSync while the coordinator was unknown; when it is
    // found again the expiry comes, the leave fails the commit, and the application's next poll() restarts the timer,
    // all in that one instant and in that order. The expiry belongs to the gap the poll ends.
    const reset = (t: number) => obs(t, "a", { type: "member.poll-timer-reset", memberId: "a-id" });
    const commitFailed = [state(2_000_000, "a", "UNJOINED", -1), reset(2_000_000), state(2_000_000, "a", "PREPARING_REBALANCE", -1)];
    expect(check("poll-expiry", [...lost, expire(2_000_000, 500_000), ...commitFailed, ...later], s).ok).toBe(true);
    // A poll in that instant before the expiry still ends the gap first: then the expiry has no gap to end.
    expect(check("poll-expiry", [...lost, reset(2_000_000), expire(2_000_000, 500_000), ...commitFailed.slice(2), ...later], s).ok).toBe(
      false,
    );
  });

  // Swarm seed 134478: member-1 was paused (the whole process) from 59.05 s, its poll timer due inside the pause at
  // 74.045 s; it was killed at 83.835 s while still paused, and a later pause (113.8 to 116.1 s) was recorded as the
  // only one. A process that dies paused never notices the expiry: the crash ends the pause and the gap.
  it("poll-expiry: a pause that ends in a crash excuses the expiry due inside it", () => {
    const coordinator = (t: number) =>
      obs(t, "a", { type: "member.coordinator", groupId: "g", memberId: "a-id", coordinator: "coordinator-0" });
    const s = { ...spec, durationUs: 10_000_000 };
    const before = [life(0, "a", "start"), state(0, "a", "STABLE"), coordinator(0), restart(0, "a"), restart(500_000, "a")];
    const pausedThenKilled = [life(600_000, "a", "pause"), life(2_500_000, "a", "crash"), life(3_000_000, "a", "restart")];
    const after = [coordinator(3_010_000), state(3_010_000, "a", "STABLE"), restart(3_100_000, "a"), restart(3_600_000, "a")];
    const laterPause = [life(4_000_000, "a", "pause"), life(4_200_000, "a", "resume"), restart(4_200_000, "a")];
    const tail = [
      restart(4_700_000, "a"),
      restart(5_200_000, "a"),
      restart(5_700_000, "a"),
      restart(6_200_000, "a"),
      restart(6_700_000, "a"),
    ];
    const tail2 = [
      restart(7_200_000, "a"),
      restart(7_700_000, "a"),
      restart(8_200_000, "a"),
      restart(8_700_000, "a"),
      restart(9_200_000, "a"),
    ];
    const run = [...before, ...pausedThenKilled, ...after, ...laterPause, ...tail, ...tail2];
    expect(check("poll-expiry", run, s).ok).toBe(true);
    // Without the pause the same gap (0.5 to 2.5 s, due at 1.5 s) must hold its expiry.
    const unpaused = run.filter((event) => !(event.ev === "life" && event.what === "pause" && event.t === 600_000));
    expect(check("poll-expiry", unpaused, s).violations[0]?.message).toMatch(/expired 0 times/);
  });

  // Swarm hunt seed 1272: a member restarted after a crash, began joining inside its first poll() and was frozen
  // there (pause-app). Its poll timer started when the new consumer was made (Kafka's Heartbeat constructor and the
  // KIP-848 HeartbeatRequestManager's), so it expires max.poll.interval.ms after the restart, with that lastPollUs.
  // (A KIP-848 member here: it checks its poll timer while JOINING; a classic one does not until its JoinGroup is
  // answered, which restarts the timer.)
  it("poll-expiry: a consumer's poll timer starts when it is made, at the start and at a restart", () => {
    const expire = (t: number, last: number) =>
      obs(t, "a", { type: "member.poll-timeout", groupId: "g", memberId: "a-id", lastPollUs: last, maxPollIntervalMs: 1000 });
    const coordinator = (t: number) =>
      obs(t, "a", { type: "member.coordinator", groupId: "g", memberId: "a-id", coordinator: "coordinator-0" });
    const s = { ...spec, durationUs: 5_000_000 };
    const restarted = [
      life(0, "a", "start"),
      state(0, "a", "STABLE"),
      coordinator(0),
      restart(0, "a"),
      restart(500_000, "a"),
      life(600_000, "a", "crash"),
      life(1_000_000, "a", "restart"),
      coordinator(1_010_000),
      state(1_010_000, "a", "JOINING", 0),
    ];
    const later = [state(2_000_000, "a", "STALE", -1), restart(3_000_000, "a"), restart(3_500_000, "a"), restart(4_000_000, "a")];
    expect(check("poll-expiry", [...restarted, expire(2_000_000, 1_000_000), ...later], s).ok).toBe(true);
    // Its timer did not start at the last poll before the crash...
    expect(check("poll-expiry", [...restarted, expire(2_000_000, 500_000), ...later], s).violations[0]?.message).toMatch(
      /lastPollUs 500000, but its last poll was at 1000000/,
    );
    // ...and it must expire, once, max.poll.interval.ms after the restart.
    expect(check("poll-expiry", [...restarted, ...later.slice(1)], s).violations[0]?.message).toMatch(/expired 0 times/);
    expect(check("poll-expiry", [...restarted, expire(2_300_000, 1_000_000), ...later.slice(1)], s).violations[0]?.message).toMatch(
      /was due at 2000000 us/,
    );
  });

  // Swarm hunt seed 955: FENCED (not heartbeating) through the whole gap, the member leaves FENCED inside the poll()
  // that ends it; that poll restarted the timer on entry (Kafka's PollEvent), so no expiry is due.
  it("poll-expiry: a poll() entered after the timer ran out restarts it there (member.poll-timer-reset)", () => {
    const coordinator = obs(0, "a", { type: "member.coordinator", groupId: "g", memberId: "a-id", coordinator: "coordinator-0" });
    const reset = (t: number) => obs(t, "a", { type: "member.poll-timer-reset", memberId: "a-id" });
    const s = { ...spec, durationUs: 5_000_000 };
    const fenced = [
      life(0, "a", "start"),
      state(0, "a", "STABLE"),
      coordinator,
      restart(0, "a"),
      restart(500_000, "a"),
      state(600_000, "a", "FENCED"),
    ];
    const rejoin = [state(3_000_000, "a", "JOINING", 0), state(3_010_000, "a", "STABLE")];
    const returns = [restart(4_000_000, "a"), restart(4_500_000, "a")];
    expect(check("poll-expiry", [...fenced, ...rejoin, reset(3_000_000), ...returns], s).ok).toBe(true);
    // Without the restart on entry the member would be due to expire as it starts heartbeating again at 3 s.
    expect(check("poll-expiry", [...fenced, ...rejoin, ...returns], s).violations[0]?.message).toMatch(/expired 0 times/);
  });

  describe("poll-expiry on the member's own clock (Kafka's poll Timer reads the wall clock)", () => {
    const expire = (t: number, last: number, who = "a", maxMs = 1000) =>
      obs(t, who, { type: "member.poll-timeout", groupId: "g", memberId: `${who}-id`, lastPollUs: last, maxPollIntervalMs: maxMs });
    const coordinator = (t: number, who = "a") =>
      obs(t, who, { type: "member.coordinator", groupId: "g", memberId: `${who}-id`, coordinator: "coordinator-0" });
    const clockStep = (t: number, deltaUs: number, who = "a"): HistoryEvent => ({
      t,
      ev: "life",
      actor: who,
      what: "clock-step",
      detail: String(deltaUs),
    });
    /** A heartbeat the member sends: a visible run, after which it checks its poll timer. */
    const heartbeat = (t: number, who = "a"): HistoryEvent => ({
      t,
      ev: "send",
      from: who,
      to: "coordinator-0",
      type: "ConsumerGroupHeartbeatRequest",
      bytes: 90,
      fate: "deliver",
      at: [t + 1000],
    });
    const s = { ...spec, durationUs: 5_000_000 };
    const base = [life(0, "a", "start"), state(0, "a", "STABLE"), coordinator(0), restart(0, "a"), restart(500_000, "a")];
    const later = [restart(3_000_000, "a"), restart(3_500_000, "a"), restart(4_000_000, "a"), restart(4_500_000, "a")];
    const judge = (...events: HistoryEvent[]) => check("poll-expiry", [...events, ...later], s);

    it("a forward step makes an early expiry expected: due when the own clock reaches lastPoll + max", () => {
      // Polled at 0.5 s; the clock jumps 0.3 s ahead at 0.8 s, so 1.5 s on its clock is 1.2 s of virtual time.
      const stepped = [...base, clockStep(800_000, 300_000), heartbeat(1_000_000)];
      expect(judge(...stepped, expire(1_200_000, 500_000)).ok).toBe(true);
      // Where the unstepped clock would have it: late, since the member ran at 1.0 s and re-armed its timer.
      expect(judge(...stepped, expire(1_500_000, 500_000)).violations[0]?.message).toMatch(
        /poll-timeout came at 1500000 us; it was due at 1200000 us/,
      );
      expect(judge(...stepped).violations[0]?.message).toMatch(/expired 0 times/);
    });

    it("a forward step the member has not run since: no earlier than its clock allows, no later than the timer it armed before the step", () => {
      // Its last run before the due moment was the poll at 0.5 s: that timer rings at 1.5 s of virtual time.
      const stepped = [...base, clockStep(800_000, 300_000)];
      expect(judge(...stepped, expire(1_200_000, 500_000)).ok).toBe(true);
      expect(judge(...stepped, expire(1_350_000, 500_000)).ok).toBe(true);
      expect(judge(...stepped, expire(1_500_000, 500_000)).ok).toBe(true);
      expect(judge(...stepped, expire(1_600_000, 500_000)).violations[0]?.message).toMatch(
        /due between 1200000 and 1500000 us \(its clock was stepped\)/,
      );
      // A visible run with the clock past the deadline and the timer checked: the member must expire there.
      expect(judge(...stepped, heartbeat(1_300_000), expire(1_400_000, 500_000)).violations[0]?.message).toMatch(
        /due between 1200000 and 1300000 us/,
      );
      // A step that jumps past the deadline at once: due at the step, noticed at the next run.
      const jump = [...base, clockStep(1_000_000, 700_000), heartbeat(1_100_000)];
      expect(judge(...jump, expire(1_100_000, 500_000)).ok).toBe(true);
      expect(judge(...jump, expire(1_200_000, 500_000)).violations[0]?.message).toMatch(/due between 1000000 and 1100000 us/);
    });

    it("a forward step whose first chance to notice is the poll that ends the gap: that poll restarts the timer first (swarm seed 23032, was a false alarm)", () => {
      // Polled at 0.5 s; at 1.2 s the clock jumps 0.5 s ahead, past the 1.5 s deadline on its clock. The timer armed at
      // 0.5 s rings at 1.5 s of virtual time, and the member's next run is its poll at 1.3 s: the poll's run restarts
      // the timer before it checks it, so the member never saw it run out.
      const steady = [restart(1_800_000, "a"), restart(2_300_000, "a"), restart(2_800_000, "a")];
      const stepped = [...base, clockStep(1_200_000, 500_000)];
      expect(judge(...stepped, restart(1_300_000, "a"), ...steady)).toEqual({ ok: true, violations: [] });
      // A run of its own before that poll (a heartbeat) checks the timer: the expiry was due there.
      expect(judge(...stepped, heartbeat(1_250_000), restart(1_300_000, "a"), ...steady).violations[0]?.message).toMatch(/expired 0 times/);
      expect(judge(...stepped, heartbeat(1_250_000), expire(1_250_000, 500_000), restart(1_300_000, "a"), ...steady).ok).toBe(true);
      // In the poll's own instant, a run before the poll (in history order) is a chance too; one after it is not.
      expect(judge(...stepped, heartbeat(1_300_000), restart(1_300_000, "a"), ...steady).violations[0]?.message).toMatch(/expired 0 times/);
      expect(judge(...stepped, restart(1_300_000, "a"), heartbeat(1_300_000), ...steady).ok).toBe(true);
      // The timer armed before the step rings at 1.5 s: a poll in that very instant may come after it (the expiry is due),
      // and one after it must have been preceded by the expiry.
      expect(judge(...stepped, restart(1_500_000, "a"), restart(2_000_000, "a"), ...steady.slice(1)).violations[0]?.message).toMatch(
        /expired 0 times/,
      );
      expect(judge(...stepped, restart(1_600_000, "a"), restart(2_100_000, "a"), ...steady.slice(1)).violations[0]?.message).toMatch(
        /expired 0 times/,
      );
    });

    it("a forward step whose timer rings in the instant the member loses its coordinator: no chance to notice there (swarm seed 103052, was a false alarm)", () => {
      // Polled at 0.5 s; the clock jumps 0.3 s ahead at 0.8 s, so the deadline is 1.2 s of virtual time, and the timer
      // armed at 0.5 s rings at 1.5 s. In that instant a request that timed out takes the member's coordinator away
      // before it looks at its poll timer (Kafka's network thread fails timed-out requests as its wait ends, before its
      // request managers run again), and it finds one again only after its next poll, at 2.0 s, restarted the timer.
      const lost = obs(1_500_000, "a", { type: "member.coordinator", groupId: "g", memberId: "a-id", coordinator: null });
      const steady = [restart(2_000_000, "a"), restart(2_500_000, "a")];
      const stepped = [...base, clockStep(800_000, 300_000)];
      expect(judge(...stepped, lost, restart(2_000_000, "a"), coordinator(2_200_000), restart(2_500_000, "a"))).toEqual({
        ok: true,
        violations: [],
      });
      // Found again before that poll: its run there checks the timer, and the expiry is due there.
      expect(judge(...stepped, lost, coordinator(1_800_000), restart(2_000_000, "a"), ...steady.slice(1)).violations[0]?.message).toMatch(
        /expired 0 times/,
      );
      expect(
        judge(...stepped, lost, coordinator(1_800_000), expire(1_800_000, 500_000), restart(2_000_000, "a"), ...steady.slice(1)).ok,
      ).toBe(true);
      // With its coordinator kept, the ring is its chance: it must expire by 1.5 s.
      expect(judge(...stepped, ...steady).violations[0]?.message).toMatch(/expired 0 times/);
    });

    it("an expiry earlier than the member's own clock allows fails", () => {
      const stepped = [...base, clockStep(800_000, 300_000), heartbeat(1_000_000)];
      // At 1.1 s the member's clock reads 1.4 s: 0.9 s after its poll.
      expect(judge(...stepped, expire(1_100_000, 500_000)).violations[0]?.message).toMatch(
        /a expired 900000 us after its last poll on its own clock, before max.poll.interval.ms \(1000 ms\)/,
      );
    });

    it("a backward step makes the expiry late, exactly by the step", () => {
      const stepped = [...base, clockStep(800_000, -300_000), heartbeat(1_000_000)];
      expect(judge(...stepped, expire(1_800_000, 500_000)).ok).toBe(true);
      // At the unstepped deadline the member's clock reads only 1.2 s.
      expect(judge(...stepped, expire(1_500_000, 500_000)).violations[0]?.message).toMatch(/expired 700000 us after its last poll/);
      expect(judge(...stepped, expire(1_900_000, 500_000)).violations[0]?.message).toMatch(/it was due at 1800000 us/);
      // No heartbeat after the step: the timer armed before it rings early, the member re-arms, and still expires at 1.8 s.
      expect(judge(...base, clockStep(800_000, -300_000), expire(1_800_000, 500_000)).ok).toBe(true);
    });

    it("after a backward step the poll timer starts from the clock's high-water mark at most (Kafka's Timer never goes back)", () => {
      // Polled at 0.9 s of virtual time, just after a 0.3 s step back at 0.8 s: its clock read 0.6 s, but its timer may
      // still hold the 0.8 s it read before the step (anything from 0.6 s to 0.8 s, by when it last read the clock).
      const stepped = [...base, clockStep(800_000, -300_000), restart(900_000, "a")];
      expect(judge(...stepped, expire(2_100_000, 800_000)).ok).toBe(true);
      expect(judge(...stepped, expire(1_900_000, 600_000)).ok).toBe(true);
      expect(judge(...stepped, expire(2_000_000, 700_000)).ok).toBe(true);
      expect(judge(...stepped, expire(2_000_000, 900_000)).violations[0]?.message).toMatch(
        /lastPollUs 900000, but its last poll was at 600000\.\.800000 on its own clock \(virtual 900000\)/,
      );
      expect(judge(...stepped, expire(2_000_000, 800_000)).violations[0]?.message).toMatch(/expired 900000 us after its last poll/);
      // With no expiry, a gap is judged from the latest start: its clock must reach 1.8 s (at 2.1 s) before the next poll.
      expect(judge(...stepped, restart(2_050_000, "a"), restart(2_500_000, "a")).ok).toBe(true);
      expect(judge(...stepped, restart(2_200_000, "a"), restart(2_500_000, "a")).violations[0]?.message).toMatch(/expired 0 times/);
    });

    it("lastPollUs is the member's own clock at its last poll", () => {
      const stepped = [...base, clockStep(800_000, 300_000), restart(1_000_000, "a")];
      // Polled at 1.0 s of virtual time, 1.3 s on its clock: due at 2.3 s on its clock, 2.0 s virtual.
      expect(judge(...stepped, expire(2_000_000, 1_300_000)).ok).toBe(true);
      expect(judge(...stepped, expire(2_000_000, 1_000_000)).violations[0]?.message).toMatch(
        /lastPollUs 1000000, but its last poll was at 1300000 on its own clock \(virtual 1000000\)/,
      );
    });

    it("swarm seed 48: a member whose clock was stepped long before its last poll expires on that clock (was a false alarm)", () => {
      // member-1 of the swarm's seed 48: max.poll.interval.ms 30 s, its clock stepped 4.249 s ahead at 41.124 s, its last
      // poll at 73.551 s of virtual time (77.8 s on its clock), expired at 103.551 s with lastPollUs 77800000.
      const m1 = member("m1", { "max.poll.interval.ms": 30_000 });
      const s48 = testSpec({ durationUs: 120_000_000, actors: [actor("coordinator-0", "group-coordinator", {}), m1] });
      const events = [
        life(0, "m1", "start"),
        state(0, "m1", "STABLE"),
        coordinator(0, "m1"),
        restart(0, "m1"),
        restart(20_000_000, "m1"),
        restart(40_000_000, "m1"),
        clockStep(41_124_000, 4_249_000, "m1"),
        restart(60_000_000, "m1"),
        restart(73_551_000, "m1"),
        heartbeat(100_000_000, "m1"),
        expire(103_551_000, 77_800_000, "m1", 30_000),
        restart(110_000_000, "m1"),
      ];
      expect(check("poll-expiry", events, s48)).toEqual({ ok: true, violations: [] });
      // Still exact: the virtual deadline (the old reading) is 4.249 s late.
      const late = events.map((e) => (e.ev === "obs" && e.o.type === "member.poll-timeout" ? { ...e, t: 107_800_000 } : e));
      expect(check("poll-expiry", late, s48).violations[0]?.message).toMatch(/it was due at 103551000 us/);
    });
  });
});
