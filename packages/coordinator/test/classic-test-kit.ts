import {
  type ActorId,
  encodeAssignment,
  encodeSubscription,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type JsonValue,
  type LeaveGroupRequest,
  type LeaveGroupResponse,
  type Message,
  type Observation,
  type OffsetCommitRequest,
  type OffsetCommitResponse,
  type SyncGroupRequest,
  type SyncGroupResponse,
} from "@kcsim/protocol";
import { type CoordinatorUnderTest, coordinatorConfig, T1, T2 } from "./coordinator-test-kit.js";

let correlation = 50_000;

/** A coordinator config for classic tests: linger 0, no load, both topics, optional broker overrides. */
export function classicConfig(broker: Record<string, JsonValue> = {}): JsonValue {
  return coordinatorConfig({ broker, topics: [T1, T2] });
}

/** A ConsumerProtocolSubscription (v3) as JoinGroup metadata. */
export function subscription(topics: readonly string[], owned: Record<string, number[]> = {}, generationId = -1): Uint8Array {
  return encodeSubscription({
    version: 3,
    topics: [...topics],
    userData: null,
    ownedPartitions: Object.entries(owned).map(([topic, partitions]) => ({ topic, partitions })),
    generationId,
    rackId: null,
  });
}

/** A ConsumerProtocolAssignment as SyncGroup carries it. */
export function assignment(partitions: Record<string, number[]>, userData: Uint8Array | null = null): Uint8Array {
  return encodeAssignment({
    version: 3,
    assignedPartitions: Object.entries(partitions).map(([topic, list]) => ({ topic, partitions: list })),
    userData,
  });
}

export interface JoinOptions {
  readonly groupId?: string;
  readonly memberId?: string;
  readonly instanceId?: string | null;
  readonly clientId?: string;
  readonly topics?: readonly string[];
  readonly owned?: Record<string, number[]>;
  /** Protocol names in preference order (each with the same subscription); default ["range"]. */
  readonly protocols?: readonly string[];
  readonly protocolType?: string;
  readonly sessionTimeoutMs?: number;
  readonly rebalanceTimeoutMs?: number;
  readonly apiVersion?: number;
}

export function joinRequest(options: JoinOptions = {}): JoinGroupRequest {
  const metadata = subscription(options.topics ?? ["T1"], options.owned ?? {});
  return {
    type: "JoinGroupRequest",
    correlationId: ++correlation,
    apiVersion: options.apiVersion ?? 9,
    clientId: options.clientId ?? "client",
    groupId: options.groupId ?? "g",
    sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
    rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 60_000,
    memberId: options.memberId ?? "",
    groupInstanceId: options.instanceId ?? null,
    protocolType: options.protocolType ?? "consumer",
    protocols: (options.protocols ?? ["range"]).map((name) => ({ name, metadata })),
    reason: null,
  };
}

export function syncRequest(
  memberId: string,
  generationId: number,
  assignments: Record<string, Uint8Array> = {},
  fields: Partial<SyncGroupRequest> = {},
): SyncGroupRequest {
  return {
    type: "SyncGroupRequest",
    correlationId: ++correlation,
    apiVersion: 5,
    clientId: "client",
    groupId: "g",
    generationId,
    memberId,
    groupInstanceId: null,
    protocolType: "consumer",
    protocolName: "range",
    assignments: Object.entries(assignments).map(([id, bytes]) => ({ memberId: id, assignment: bytes })),
    ...fields,
  };
}

export function heartbeatRequest(memberId: string, generationId: number, fields: Partial<HeartbeatRequest> = {}): HeartbeatRequest {
  return {
    type: "HeartbeatRequest",
    correlationId: ++correlation,
    apiVersion: 4,
    clientId: "client",
    groupId: "g",
    generationId,
    memberId,
    groupInstanceId: null,
    ...fields,
  };
}

export function leaveRequest(members: { memberId: string; instanceId?: string | null }[], groupId = "g"): LeaveGroupRequest {
  return {
    type: "LeaveGroupRequest",
    correlationId: ++correlation,
    apiVersion: 5,
    clientId: "client",
    groupId,
    members: members.map(({ memberId, instanceId }) => ({ memberId, groupInstanceId: instanceId ?? null, reason: null })),
  };
}

export function commitRequest(memberId: string, generationId: number, fields: Partial<OffsetCommitRequest> = {}): OffsetCommitRequest {
  return {
    type: "OffsetCommitRequest",
    correlationId: ++correlation,
    apiVersion: 8,
    clientId: "client",
    groupId: "g",
    generationIdOrMemberEpoch: generationId,
    memberId,
    groupInstanceId: null,
    topics: [{ name: "T1", partitions: [{ partitionIndex: 0, committedOffset: 10, committedLeaderEpoch: -1, committedMetadata: null }] }],
    ...fields,
  };
}

/** Sends a request; returns its response if one was sent (a parked request has none yet). */
export function send<T extends Message>(
  gc: CoordinatorUnderTest,
  from: ActorId,
  request: Message & { correlationId: number },
): T | undefined {
  gc.send(from, request);
  return gc.responseTo<T>(request.correlationId);
}

export function answer<T extends Message>(gc: CoordinatorUnderTest, request: { correlationId: number }): T {
  const response = gc.responseTo<T>(request.correlationId);
  if (response === undefined) throw new Error(`no response to request ${request.correlationId}`);
  return response;
}

export const joinAnswer = (gc: CoordinatorUnderTest, request: JoinGroupRequest): JoinGroupResponse | undefined =>
  gc.responseTo<JoinGroupResponse>(request.correlationId);
export const syncAnswer = (gc: CoordinatorUnderTest, request: SyncGroupRequest): SyncGroupResponse | undefined =>
  gc.responseTo<SyncGroupResponse>(request.correlationId);

export function heartbeatError(gc: CoordinatorUnderTest, from: string, request: HeartbeatRequest): number {
  gc.send(from, request);
  return answer<HeartbeatResponse>(gc, request).errorCode;
}

export function leave(gc: CoordinatorUnderTest, request: LeaveGroupRequest): LeaveGroupResponse {
  gc.send("client", request);
  return answer<LeaveGroupResponse>(gc, request);
}

export function commitErrors(gc: CoordinatorUnderTest, from: string, request: OffsetCommitRequest): number[] {
  gc.send(from, request);
  return answer<OffsetCommitResponse>(gc, request).topics.flatMap((topic) => topic.partitions.map((partition) => partition.errorCode));
}

/**
 * KIP-394: a dynamic member asks with "" and gets MEMBER_ID_REQUIRED with
 * its id; it then rejoins with that id (parked). Returns the id and the
 * parked JoinGroup.
 */
export function joinDynamic(
  gc: CoordinatorUnderTest,
  client: string,
  options: JoinOptions = {},
): { memberId: string; join: JoinGroupRequest } {
  const first = joinRequest({ ...options, clientId: client, memberId: "" });
  gc.send(client, first);
  const required = answer<JoinGroupResponse>(gc, first);
  if (required.errorCode !== 79) throw new Error(`expected MEMBER_ID_REQUIRED, got ${required.errorCode}`);
  const join = joinRequest({ ...options, clientId: client, memberId: required.memberId });
  gc.send(client, join);
  return { memberId: required.memberId, join };
}

/** A static member joins with "" and its instance id (no KIP-394 round trip). */
export function joinStatic(gc: CoordinatorUnderTest, client: string, instanceId: string, options: JoinOptions = {}): JoinGroupRequest {
  const join = joinRequest({ ...options, clientId: client, memberId: "", instanceId });
  gc.send(client, join);
  return join;
}

export interface StableMemberSpec extends JoinOptions {
  readonly client: string;
  readonly instanceId?: string;
}

export interface StableGroup {
  /** client -> member id */
  readonly ids: Record<string, string>;
  readonly generation: number;
  readonly leader: string;
}

/**
 * Members join at once (initial delay 0 expected), the leader syncs with
 * `assignments` (by client), followers sync: the group is STABLE.
 */
export function stableGroup(
  gc: CoordinatorUnderTest,
  members: readonly StableMemberSpec[],
  assignments: Record<string, Record<string, number[]>>,
): StableGroup {
  const joins = members.map((member) => {
    const { client, instanceId, ...options } = member;
    return {
      client,
      join: instanceId === undefined ? joinDynamic(gc, client, options).join : joinStatic(gc, client, instanceId, options),
    };
  });
  gc.advance(0);
  const ids: Record<string, string> = {};
  let generation = -1;
  let leader = "";
  for (const { client, join } of joins) {
    const response = answer<JoinGroupResponse>(gc, join);
    if (response.errorCode !== 0) throw new Error(`join of ${client} failed with ${response.errorCode}`);
    ids[client] = response.memberId;
    generation = response.generationId;
    leader = response.leader;
  }
  const byMemberId: Record<string, Uint8Array> = {};
  for (const [client, partitions] of Object.entries(assignments)) {
    const memberId = ids[client];
    if (memberId !== undefined) byMemberId[memberId] = assignment(partitions);
  }
  for (const { client } of joins) {
    const memberId = ids[client] ?? "";
    if (memberId === leader) continue;
    gc.send(client, syncRequest(memberId, generation));
  }
  const leaderClient = joins.find(({ client }) => ids[client] === leader)?.client ?? "leader";
  const leaderSync = syncRequest(leader, generation, byMemberId);
  gc.send(leaderClient, leaderSync);
  if (answer<SyncGroupResponse>(gc, leaderSync).errorCode !== 0) throw new Error("the leader's SyncGroup failed");
  return { ids, generation, leader };
}

export interface ClassicMemberView {
  memberId: string;
  instanceId: string | null;
  protocols: string[];
  awaitingJoin: boolean;
  awaitingSync: boolean;
  isNew: boolean;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  assigned: Record<string, number[]>;
}

export interface ClassicGroupView {
  groupId: string;
  protocol: "classic";
  generationId: number;
  state: string;
  protocolType: string | null;
  protocolName: string | null;
  leader: string | null;
  members: ClassicMemberView[];
  pendingMembers: string[];
  pendingSyncMembers: string[];
  offsets: Record<string, Record<string, number>>;
}

export function classicGroup(gc: CoordinatorUnderTest, groupId = "g"): ClassicGroupView {
  const group = (gc.snapshot().groups as unknown as { groupId: string }[]).find((g) => g.groupId === groupId);
  if (group === undefined) throw new Error(`no group ${groupId}`);
  return group as ClassicGroupView;
}

export function observed(gc: CoordinatorUnderTest, type: string): Observation[] {
  return gc.ctx.observationsOf(type);
}

/** The gc.member-removed reasons, as memberId:reason. */
export function removals(gc: CoordinatorUnderTest): string[] {
  return observed(gc, "gc.member-removed").map((o) => `${o.memberId}:${o.reason}`);
}

/** Remaining time of a timer in ms (undefined when not armed). */
export function timerMs(gc: CoordinatorUnderTest, name: string): number | undefined {
  const remaining = gc.ctx.timerRemaining(name);
  return remaining === undefined ? undefined : remaining / 1000;
}
