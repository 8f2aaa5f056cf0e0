import {
  type Actor,
  type ActorId,
  type ActorLogger,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type Context,
  type DurableLog,
  type JsonValue,
  type Message,
  type Micros,
  ms,
  type Observation,
  topicIdFor,
} from "@kcsim/protocol";
import {
  type CommittedPartition,
  committedPartitions,
  createGroupCoordinator,
  type OffsetCommitObservation,
  type TopicIdPartitions,
} from "../src/index.js";

/** A durable log that, like the harness's, hands back copies (records go through a structured clone). */
export class FakeDurableLog implements DurableLog {
  readonly records: unknown[] = [];

  append(record: unknown): void {
    this.records.push(structuredClone(record));
  }

  readAll(): unknown[] {
    return this.records.map((record) => structuredClone(record));
  }

  get length(): number {
    return this.records.length;
  }
}

const SILENT: ActorLogger = { debug() {}, info() {}, warn() {}, error() {} };

interface ArmedTimer {
  readonly due: Micros;
  readonly seq: number;
}

/** A Context with a fake clock, captured sends and observations, and timers fired by `advance`. */
export class FakeContext implements Context {
  readonly self: ActorId;
  readonly storage: FakeDurableLog;
  readonly log: ActorLogger = SILENT;
  readonly sent: { to: ActorId; message: Message }[] = [];
  readonly observed: Observation[] = [];
  readonly timers = new Map<string, ArmedTimer>();
  time: Micros;
  #seq = 0;
  #random: number;

  constructor(self: ActorId, storage: FakeDurableLog, time: Micros = 0, seed = 1) {
    this.self = self;
    this.storage = storage;
    this.time = time;
    this.#random = seed;
  }

  now(): Micros {
    return this.time;
  }

  send(to: ActorId, message: Message): void {
    this.sent.push({ to, message: structuredClone(message) });
  }

  setTimer(name: string, after: Micros): void {
    this.timers.set(name, { due: this.time + after, seq: this.#seq++ });
  }

  cancelTimer(name: string): void {
    this.timers.delete(name);
  }

  /** The datagram-like test network has no connections to close or configure. */
  closeConnection(): void {}
  configureConnections(): void {}
  hasTimer(name: string): boolean {
    return this.timers.has(name);
  }

  random(): number {
    // xorshift32: deterministic, good enough for member ids.
    let x = this.#random;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#random = x >>> 0 || 1;
    return this.#random / 0x1_0000_0000;
  }

  observe(event: Observation): void {
    this.observed.push(event);
  }

  /** Remaining time of a timer, or undefined when it is not armed. */
  timerRemaining(name: string): Micros | undefined {
    const timer = this.timers.get(name);
    return timer === undefined ? undefined : timer.due - this.time;
  }

  /** Moves the clock forward, firing due timers in (due, arming) order. */
  advance(actor: Actor, by: Micros): void {
    const end = this.time + by;
    for (;;) {
      let next: [string, ArmedTimer] | undefined;
      for (const entry of this.timers) {
        if (entry[1].due > end) continue;
        if (next === undefined || entry[1].due < next[1].due || (entry[1].due === next[1].due && entry[1].seq < next[1].seq)) next = entry;
      }
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.time = next[1].due;
      actor.fire(next[0], this);
    }
    this.time = end;
  }

  observationsOf(type: string): Observation[] {
    return this.observed.filter((observation) => observation.type === type);
  }

  /** The partitions of every gc.offset-commit, one entry each, in order. */
  committedPartitions(): CommittedPartition[] {
    return this.observationsOf("gc.offset-commit").flatMap((o) => committedPartitions(o as unknown as OffsetCommitObservation));
  }
}

export const COORDINATOR = "coordinator-0";

export const T1 = { name: "T1", id: topicIdFor("T1"), partitions: 90 };
export const T2 = { name: "T2", id: topicIdFor("T2"), partitions: 12 };

export interface ConfigOptions {
  readonly broker?: Record<string, JsonValue>;
  readonly topics?: readonly { name: string; id: string; partitions: number }[];
  readonly coordinators?: readonly string[];
  /** null: the default load time. */
  readonly loadMs?: number | null;
}

/** A coordinator config: linger 0 and no load time unless asked (tests opt into batching and loading). */
export function coordinatorConfig(options: ConfigOptions = {}): JsonValue {
  return {
    broker: { "group.coordinator.append.linger.ms": 0, ...(options.broker ?? {}) },
    topics: (options.topics ?? [T1]).map((topic) => ({ ...topic })),
    coordinators: [...(options.coordinators ?? [COORDINATOR])],
    ...(options.loadMs === null ? {} : { loadMs: options.loadMs ?? 0 }),
  };
}

let correlation = 0;

export function heartbeatRequest(fields: Partial<ConsumerGroupHeartbeatRequest> & { memberId: string }): ConsumerGroupHeartbeatRequest {
  return {
    type: "ConsumerGroupHeartbeatRequest",
    correlationId: ++correlation,
    apiVersion: 1,
    clientId: fields.memberId === "" ? "client" : `client-${fields.memberId}`,
    groupId: "g",
    memberEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    subscribedTopicNames: null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: null,
    ...fields,
  };
}

/** The full join request of a member (epoch 0, every field). */
export function joinRequest(
  memberId: string,
  topics: readonly string[] = ["T1"],
  fields: Partial<ConsumerGroupHeartbeatRequest> = {},
): ConsumerGroupHeartbeatRequest {
  return heartbeatRequest({
    memberId,
    memberEpoch: 0,
    rebalanceTimeoutMs: 300000,
    subscribedTopicNames: [...topics],
    topicPartitions: [],
    ...fields,
  });
}

/** One coordinator actor on a fake context, with request helpers. */
export class CoordinatorUnderTest {
  actor: Actor;
  ctx: FakeContext;
  readonly storage: FakeDurableLog;
  readonly config: JsonValue;

  constructor(config: JsonValue = coordinatorConfig(), storage = new FakeDurableLog(), id = COORDINATOR) {
    this.config = config;
    this.storage = storage;
    this.ctx = new FakeContext(id, storage);
    this.actor = createGroupCoordinator(id, config);
    this.actor.start(this.ctx);
  }

  /** Crashes the actor (volatile state, timers, open batch lost) and starts a fresh one on the same log. */
  restart(): void {
    const time = this.ctx.time;
    this.ctx = new FakeContext(this.ctx.self, this.storage, time);
    this.actor = createGroupCoordinator(this.ctx.self, this.config);
    this.actor.start(this.ctx);
  }

  send(from: ActorId, message: Message): void {
    this.actor.receive(from, message, this.ctx);
  }

  advance(by: Micros): void {
    this.ctx.advance(this.actor, by);
  }

  advanceMs(milliseconds: number): void {
    this.advance(ms(milliseconds));
  }

  /** The response to the request with that correlation id, if it was sent. */
  responseTo<T extends Message>(correlationId: number): T | undefined {
    for (let i = this.ctx.sent.length - 1; i >= 0; i--) {
      const message = this.ctx.sent[i]?.message as Message & { correlationId?: number };
      if (message.correlationId === correlationId && !message.type.endsWith("Request")) return message as T;
    }
    return undefined;
  }

  /** Sends a heartbeat from `from` and returns its response (it must have been sent). */
  heartbeat(request: ConsumerGroupHeartbeatRequest, from = request.memberId || "client"): ConsumerGroupHeartbeatResponse {
    this.send(from, request);
    const response = this.responseTo<ConsumerGroupHeartbeatResponse>(request.correlationId);
    if (response === undefined) throw new Error(`no response to heartbeat ${request.correlationId}`);
    return response;
  }

  snapshot(): CoordinatorSnapshotView {
    return this.actor.snapshot?.() as unknown as CoordinatorSnapshotView;
  }

  group(groupId = "g"): GroupView {
    const group = this.snapshot().groups.find((g) => g.groupId === groupId);
    if (group === undefined) throw new Error(`no group ${groupId}`);
    return group;
  }

  member(memberId: string, groupId = "g"): MemberView {
    const member = this.group(groupId).members.find((m) => m.memberId === memberId);
    if (member === undefined) throw new Error(`no member ${memberId} in ${groupId}`);
    return member;
  }
}

export interface MemberView {
  memberId: string;
  instanceId: string | null;
  clientId: string;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: string;
  subscribedTopicNames: string[];
  serverAssignor: string | null;
  rebalanceTimeoutMs: number;
  assigned: Record<string, number[]>;
  pendingRevocation: Record<string, number[]>;
  target: Record<string, number[]>;
}

export interface GroupView {
  groupId: string;
  protocol: string;
  groupEpoch: number;
  assignmentEpoch: number;
  state: string;
  members: MemberView[];
  offsets: Record<string, Record<string, number>>;
  /** Pending transactional offsets: producer id -> topic -> partition -> offset. */
  pendingOffsets: Record<string, Record<string, Record<string, number>>>;
}

export interface CoordinatorSnapshotView {
  loading: boolean;
  pendingRecords: number;
  groups: GroupView[];
  timers: string[];
}

/** Partitions of a heartbeat assignment, by topic id. */
export function countOf(assignment: readonly TopicIdPartitions[] | null | undefined): number {
  let count = 0;
  for (const entry of assignment ?? []) count += entry.partitions.length;
  return count;
}

/**
 * A well-behaved consumer for driving the coordinator: it reconciles at
 * once (revokes and takes what the last assignment says) and reports what
 * it owns on the next heartbeat.
 */
export class SimulatedMember {
  epoch = 0;
  owned: TopicIdPartitions[] = [];
  #sentOwned: TopicIdPartitions[] | null = null;
  #full = true;

  constructor(
    readonly memberId: string,
    readonly topics: readonly string[] = ["T1"],
    readonly instanceId: string | null = null,
    readonly groupId = "g",
    readonly rebalanceTimeoutMs = 300000,
  ) {}

  /** The next heartbeat: full after joining or an error, else only what changed. */
  request(): ConsumerGroupHeartbeatRequest {
    if (this.epoch === 0) {
      this.#sentOwned = [];
      this.#full = false;
      return joinRequest(this.memberId, this.topics, {
        instanceId: this.instanceId,
        groupId: this.groupId,
        rebalanceTimeoutMs: this.rebalanceTimeoutMs,
      });
    }
    const ownedChanged = this.#sentOwned === null || !sameOwned(this.#sentOwned, this.owned);
    const request = heartbeatRequest({
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: this.epoch,
      instanceId: this.instanceId,
      rebalanceTimeoutMs: this.#full ? this.rebalanceTimeoutMs : -1,
      subscribedTopicNames: this.#full ? [...this.topics] : null,
      topicPartitions:
        this.#full || ownedChanged ? this.owned.map((tp) => ({ topicId: tp.topicId, partitions: [...tp.partitions] })) : null,
    });
    this.#sentOwned = this.owned;
    this.#full = false;
    return request;
  }

  /** Applies a response: a new epoch, and the assignment when one came. */
  onResponse(response: ConsumerGroupHeartbeatResponse): void {
    if (response.errorCode !== 0) {
      this.#full = true;
      this.#sentOwned = null;
      if (response.errorCode === 110 || response.errorCode === 25) {
        this.epoch = 0;
        this.owned = [];
      }
      return;
    }
    this.epoch = response.memberEpoch;
    if (response.assignment !== null) this.owned = response.assignment.topicPartitions.map((tp) => ({ ...tp }));
  }

  /** The response was lost in transit: like the Java client, forget what was sent and send everything next time. */
  onLost(): void {
    this.#full = true;
    this.#sentOwned = null;
  }

  /** One heartbeat round trip. */
  heartbeat(coordinator: CoordinatorUnderTest): ConsumerGroupHeartbeatResponse {
    const response = coordinator.heartbeat(this.request(), this.memberId);
    this.onResponse(response);
    return response;
  }
}

function sameOwned(a: readonly TopicIdPartitions[], b: readonly TopicIdPartitions[]): boolean {
  const key = (x: readonly TopicIdPartitions[]) =>
    x
      .map((tp) => `${tp.topicId}:${[...tp.partitions].sort((p, q) => p - q).join(",")}`)
      .sort()
      .join("|");
  return key(a) === key(b);
}

/** Every partition held (assigned or pending revocation) by two members at once, per the snapshot. */
export function doubleHeld(group: GroupView): string[] {
  const holder = new Map<string, string>();
  const conflicts: string[] = [];
  for (const member of group.members) {
    for (const held of [member.assigned, member.pendingRevocation]) {
      for (const [topic, partitions] of Object.entries(held)) {
        for (const partition of partitions) {
          const key = `${topic}-${partition}`;
          const other = holder.get(key);
          if (other !== undefined && other !== member.memberId) conflicts.push(`${key}: ${other} and ${member.memberId}`);
          holder.set(key, member.memberId);
        }
      }
    }
  }
  return conflicts;
}

/**
 * The harness's revoke-before-reassign rule, on the coordinator's own
 * observations: a partition appears in a member's held set (assigned +
 * pending revocation) only when no other member holds it.
 */
export function revokeBeforeReassignViolations(observations: readonly Observation[]): string[] {
  const holds = new Map<string, Map<string, Set<string>>>();
  const violations: string[] = [];
  for (const observation of observations) {
    if (observation.type === "gc.member-removed") {
      holds.get(observation.groupId as string)?.delete(observation.memberId as string);
      continue;
    }
    if (observation.type !== "gc.member") continue;
    const groupId = observation.groupId as string;
    const memberId = observation.memberId as string;
    let group = holds.get(groupId);
    if (group === undefined) {
      group = new Map();
      holds.set(groupId, group);
    }
    const previous = group.get(memberId) ?? new Set<string>();
    const next = new Set<string>();
    for (const held of [observation.assigned, observation.pendingRevocation] as Record<string, number[]>[]) {
      for (const [topic, partitions] of Object.entries(held)) for (const partition of partitions) next.add(`${topic}-${partition}`);
    }
    for (const partition of next) {
      if (previous.has(partition)) continue;
      for (const [other, theirs] of group) {
        if (other !== memberId && theirs.has(partition)) violations.push(`${partition} given to ${memberId} while ${other} holds it`);
      }
    }
    group.set(memberId, next);
  }
  return violations;
}

/** Every gc.group / gc.member epoch sequence is monotonic (member epochs may reset to 0, -1, -2). */
export function epochViolations(observations: readonly Observation[]): string[] {
  const groups = new Map<string, { groupEpoch: number; assignmentEpoch: number }>();
  const members = new Map<string, number>();
  const violations: string[] = [];
  for (const observation of observations) {
    if (observation.type === "gc.group") {
      const previous = groups.get(observation.groupId as string);
      const groupEpoch = observation.groupEpoch as number;
      const assignmentEpoch = observation.assignmentEpoch as number;
      if (previous !== undefined && (groupEpoch < previous.groupEpoch || assignmentEpoch < previous.assignmentEpoch)) {
        violations.push(
          `group ${observation.groupId}: ${previous.groupEpoch}/${previous.assignmentEpoch} -> ${groupEpoch}/${assignmentEpoch}`,
        );
      }
      groups.set(observation.groupId as string, { groupEpoch, assignmentEpoch });
    } else if (observation.type === "gc.member") {
      const key = `${observation.groupId}/${observation.memberId}`;
      const epoch = observation.memberEpoch as number;
      const previous = members.get(key);
      if (previous !== undefined && epoch < previous && ![0, -1, -2].includes(epoch)) violations.push(`${key}: ${previous} -> ${epoch}`);
      members.set(key, epoch);
    } else if (observation.type === "gc.member-removed") {
      members.delete(`${observation.groupId}/${observation.memberId}`);
    }
  }
  return violations;
}

/** Heartbeats every member, round after round, until the group is STABLE with everyone at the group epoch. */
export function converge(gc: CoordinatorUnderTest, members: readonly SimulatedMember[], maxRounds = 20): void {
  for (let round = 0; round < maxRounds; round++) {
    for (const member of members) member.heartbeat(gc);
    const group = gc.group(members[0]?.groupId ?? "g");
    if (group.state === "STABLE" && group.members.every((m) => m.memberEpoch === group.groupEpoch)) {
      // One more round so every member has the final assignment.
      for (const member of members) member.heartbeat(gc);
      return;
    }
  }
  throw new Error("the group did not converge");
}
