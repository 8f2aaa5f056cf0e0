import {
  type ConsumerProtocolSubscription,
  decodeAssignment,
  decodeSubscription,
  ErrorCode,
  encodeAssignment,
  encodeSubscription,
  type HeartbeatRequest,
  type JoinGroupRequest,
  type JoinGroupResponseMember,
  type JsonValue,
  type OffsetCommitRequest,
  type SyncGroupRequest,
  type TopicPartition,
  topicIdFor,
} from "@kcsim/protocol";
import { flattenTopicPartitionList, groupPartitionsByTopic } from "../src/assignors/topic-partitions.js";
import { createClassicConsumerMember } from "../src/classic/classic-consumer-member.js";
import { BROKER, ConsumerDriver, type DriverOptions, type Sent } from "./consumer-test-support.js";

export interface ClassicConfigOverrides {
  readonly consumer?: Record<string, JsonValue>;
  readonly app?: Record<string, JsonValue>;
  readonly source?: Record<string, JsonValue>;
  readonly subscription?: readonly string[];
}

/** A classic consumer's config: T1 (4 partitions) and T2 (2), range unless told otherwise. */
export function classicConfig(overrides: ClassicConfigOverrides = {}): JsonValue {
  return {
    consumer: {
      "group.id": "g1",
      "group.protocol": "classic",
      "partition.assignment.strategy": ["range"],
      "session.timeout.ms": 10_000,
      "heartbeat.interval.ms": 3000,
      "max.poll.interval.ms": 60_000,
      ...overrides.consumer,
    },
    bootstrap: [BROKER],
    subscription: [...(overrides.subscription ?? ["T1"])],
    topics: [
      { name: "T1", id: topicIdFor("T1"), partitions: 4 },
      { name: "T2", id: topicIdFor("T2"), partitions: 2 },
    ],
    app: { processingMsPerRecord: 1, pollTimeoutMs: 1000, ...overrides.app },
    source: { kind: "synthetic", recordsPerSecondPerPartition: 10, recordBytes: 100, ...overrides.source },
  };
}

export type PartitionMap = Readonly<Record<string, readonly number[]>>;

export function partitionsOf(map: PartitionMap): TopicPartition[] {
  return Object.entries(map).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition })));
}

/** A member's JoinGroup metadata, as another client would send it. */
export function subscriptionBytes(
  topics: readonly string[],
  owned: PartitionMap = {},
  generationId = -1,
  userData: Uint8Array | null = null,
): Uint8Array {
  return encodeSubscription({
    version: 3,
    topics: [...topics],
    userData,
    ownedPartitions: groupPartitionsByTopic(partitionsOf(owned)),
    generationId,
    rackId: null,
  });
}

export function assignmentBytes(map: PartitionMap): Uint8Array {
  return encodeAssignment({ version: 3, assignedPartitions: groupPartitionsByTopic(partitionsOf(map)), userData: null });
}

/** The partitions of an encoded assignment, as topic -> partitions. */
export function decodeAssignmentMap(bytes: Uint8Array): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const { topic, partition } of flattenTopicPartitionList(decodeAssignment(bytes).assignedPartitions)) {
    out[topic] = [...(out[topic] ?? []), partition];
  }
  return out;
}

/** The subscription a JoinGroup carries for one protocol. */
export function joinSubscription(request: JoinGroupRequest, protocol: string): ConsumerProtocolSubscription {
  const entry = request.protocols.find((p) => p.name === protocol);
  if (entry === undefined) throw new Error(`JoinGroup without protocol ${protocol}`);
  return decodeSubscription(entry.metadata);
}

export interface JoinReply {
  readonly error?: number;
  readonly memberId?: string;
  readonly generation?: number;
  /** The leader's member id; defaults to another member (this one follows). */
  readonly leader?: string;
  readonly protocolName?: string | null;
  readonly protocolType?: string | null;
  readonly members?: readonly JoinGroupResponseMember[];
  readonly skipAssignment?: boolean;
}

export interface SyncReply {
  readonly error?: number;
  readonly assignment?: PartitionMap;
  readonly rawAssignment?: Uint8Array;
  readonly protocolName?: string | null;
}

export const OTHER_LEADER = "other-leader";

/** Drives one classic consumer actor with a scripted coordinator. */
export class ClassicDriver extends ConsumerDriver {
  constructor(config: JsonValue = classicConfig(), options: DriverOptions = {}) {
    super(config, { ...options, create: createClassicConsumerMember });
  }

  get generation(): number {
    return Number(this.snapshot.generation);
  }

  get memberId(): string {
    return String(this.snapshot.memberId);
  }

  get owned(): JsonValue {
    return this.snapshot.owned ?? null;
  }

  joins(): (Sent & { message: JoinGroupRequest })[] {
    return this.sentOf("JoinGroupRequest");
  }

  syncs(): (Sent & { message: SyncGroupRequest })[] {
    return this.sentOf("SyncGroupRequest");
  }

  classicHeartbeats(): (Sent & { message: HeartbeatRequest })[] {
    return this.sentOf("HeartbeatRequest");
  }

  /** Answers the newest JoinGroup. */
  answerJoin(reply: JoinReply = {}, request = this.lastOf("JoinGroupRequest")): JoinGroupRequest {
    const message = request.message;
    const memberId = reply.memberId ?? (message.memberId === "" ? "m-1" : message.memberId);
    const protocolName = reply.protocolName === undefined ? (message.protocols[0]?.name ?? null) : reply.protocolName;
    this.deliver(request.to, {
      type: "JoinGroupResponse",
      correlationId: message.correlationId,
      throttleTimeMs: 0,
      errorCode: reply.error ?? ErrorCode.NONE,
      generationId: reply.generation ?? 1,
      protocolType: reply.protocolType === undefined ? "consumer" : reply.protocolType,
      protocolName,
      leader: reply.leader ?? OTHER_LEADER,
      skipAssignment: reply.skipAssignment ?? false,
      memberId,
      members: [...(reply.members ?? [])],
    });
    return message;
  }

  /** Answers the newest SyncGroup. */
  answerSync(reply: SyncReply = {}, request = this.lastOf("SyncGroupRequest")): SyncGroupRequest {
    const message = request.message;
    this.deliver(request.to, {
      type: "SyncGroupResponse",
      correlationId: message.correlationId,
      throttleTimeMs: 0,
      errorCode: reply.error ?? ErrorCode.NONE,
      protocolType: "consumer",
      protocolName: reply.protocolName === undefined ? message.protocolName : reply.protocolName,
      assignment: reply.rawAssignment ?? assignmentBytes(reply.assignment ?? {}),
    });
    return message;
  }

  /** Answers the newest classic Heartbeat. */
  answerClassicHeartbeat(error: number = ErrorCode.NONE, request = this.lastOf("HeartbeatRequest")): HeartbeatRequest {
    this.deliver(request.to, {
      type: "HeartbeatResponse",
      correlationId: request.message.correlationId,
      throttleTimeMs: 0,
      errorCode: error,
    });
    return request.message;
  }

  answerLeave(): void {
    const request = this.lastOf("LeaveGroupRequest");
    this.deliver(request.to, {
      type: "LeaveGroupResponse",
      correlationId: request.message.correlationId,
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      members: request.message.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: 0 })),
    });
  }

  /**
   * Start -> coordinator found -> first poll: JoinGroup with "" ->
   * MEMBER_ID_REQUIRED "m-1" -> JoinGroup "m-1" -> joined as a follower at
   * `generation` -> SyncGroup -> `assignment` -> onPartitionsAssigned ->
   * STABLE and owned; positions fetched (nothing committed).
   */
  joinStableWith(assignment: PartitionMap = { T1: [0, 1] }, generation = 1): void {
    this.answerFindCoordinator();
    this.runUntil(() => this.joins().length === 1);
    this.answerJoin({ error: ErrorCode.MEMBER_ID_REQUIRED, memberId: "m-1", generation: -1 });
    this.runUntil(() => this.joins().length === 2);
    this.answerJoin({ generation });
    this.runUntil(() => this.syncs().length === 1);
    this.answerSync({ assignment });
    this.runUntil(() => this.snapshot.joinPhase === "idle" && this.state === "STABLE");
    if (Object.values(assignment).some((ps) => ps.length > 0)) {
      this.runUntil(() => this.sentOf("OffsetFetchRequest").length > 0);
      this.answerOffsetFetch();
    }
  }

  readonly #answered = new Set<Sent>();

  /**
   * Answers, with success, every Heartbeat, OffsetCommit and OffsetFetch
   * not answered yet (by this method or the `answer...` helpers that take
   * the newest one).
   */
  answerRoutine(leaveHeartbeats = false): void {
    for (const sent of [...this.ctx.sent]) {
      if (this.#answered.has(sent)) continue;
      const type = sent.message.type;
      if (type !== "HeartbeatRequest" && type !== "OffsetCommitRequest" && type !== "OffsetFetchRequest") continue;
      if (leaveHeartbeats && type === "HeartbeatRequest") continue;
      this.#answered.add(sent);
      if (sent.message.type === "HeartbeatRequest")
        this.answerClassicHeartbeat(ErrorCode.NONE, sent as Sent & { message: HeartbeatRequest });
      else if (sent.message.type === "OffsetCommitRequest")
        this.answerOffsetCommit(ErrorCode.NONE, sent as Sent & { message: typeof sent.message });
      else this.answerOffsetFetchOf(sent);
    }
  }

  answerOffsetFetchOf(sent: Sent): void {
    if (sent.message.type !== "OffsetFetchRequest") return;
    const group = sent.message.groups[0];
    this.deliver(sent.to, {
      type: "OffsetFetchResponse",
      correlationId: sent.message.correlationId,
      throttleTimeMs: 0,
      groups: [
        {
          groupId: "g1",
          errorCode: ErrorCode.NONE,
          topics: (group?.topics ?? []).map((topic) => ({
            name: topic.name,
            partitions: topic.partitionIndexes.map((partitionIndex) => ({
              partitionIndex,
              committedOffset: -1,
              committedLeaderEpoch: -1,
              metadata: null,
              errorCode: ErrorCode.NONE,
            })),
          })),
        },
      ],
    });
  }

  /** Runs until `done` (checked after every timer), answering heartbeats, commits and offset fetches as they go out. */
  runAnswering(done: () => boolean, maxMs = 600_000, leaveHeartbeats = false): void {
    this.answerRoutine(leaveHeartbeats);
    const until = this.ctx.virtualNow() + maxMs * 1000;
    for (let guard = 0; guard < 1_000_000 && !done(); guard++) {
      const timer = this.ctx.nextTimer(until);
      if (timer === null) {
        this.ctx.setNow(until);
        break;
      }
      this.ctx.setNow(timer.due);
      this.ctx.timers.delete(timer.name);
      this.actor.fire(timer.name, this.ctx);
      this.answerRoutine(leaveHeartbeats);
    }
    if (!done()) throw new Error(`condition not reached within ${maxMs} ms (state ${this.state})`);
  }

  /** Marks everything sent so far as answered (a test that answers by hand from here on). */
  forgetRoutine(): void {
    for (const sent of this.ctx.sent) this.#answered.add(sent);
  }

  /** From STABLE: the next heartbeat is answered REBALANCE_IN_PROGRESS; everything sent so far counts as answered. */
  announceRebalance(): void {
    const heartbeats = this.classicHeartbeats().length;
    this.runAnswering(() => this.classicHeartbeats().length > heartbeats, 600_000, true);
    this.answerClassicHeartbeat(ErrorCode.REBALANCE_IN_PROGRESS);
    this.forgetRoutine();
  }

  /** From STABLE with auto-commit: announces a rebalance and runs until onJoinPrepare's commit goes out (to be answered by hand). */
  runToJoinPrepareCommit(): Sent & { message: OffsetCommitRequest } {
    this.announceRebalance();
    const commits = this.sentOf("OffsetCommitRequest").length;
    this.runUntil(() => this.sentOf("OffsetCommitRequest").length === commits + 1);
    return this.lastOf("OffsetCommitRequest");
  }

  /**
   * From STABLE: the coordinator says a rebalance began; the next poll
   * prepares (its commit answered) and rejoins; answers JoinGroup (as
   * follower) and SyncGroup.
   */
  rebalance(assignment: PartitionMap, generation: number): void {
    const joins = this.joins().length;
    this.announceRebalance();
    this.runAnswering(() => this.joins().length > joins);
    const syncs = this.syncs().length;
    this.answerJoin({ generation });
    this.runUntil(() => this.syncs().length > syncs);
    this.answerSync({ assignment });
    this.runUntil(() => this.snapshot.joinPhase === "idle" && this.state === "STABLE");
  }
}
