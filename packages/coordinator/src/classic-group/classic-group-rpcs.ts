import {
  type BrokerConfig,
  ErrorCode,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type JoinGroupRequest,
  type JoinGroupResponse,
  type SyncGroupRequest,
  type SyncGroupResponse,
} from "@kcsim/protocol";

/**
 * Placeholders for the classic group RPCs until classic groups (and mixed
 * groups, online upgrade/downgrade) are built. They give the answers Kafka
 * gives where no classic member can exist:
 * - JoinGroup: the service pre-checks (INVALID_GROUP_ID,
 *   INVALID_SESSION_TIMEOUT), then INCONSISTENT_GROUP_PROTOCOL for every
 *   group: what a consumer group with members answered a classic join
 *   before mixed groups, and a fatal, clear refusal for groups that would
 *   need a classic group.
 * - SyncGroup and Heartbeat: UNKNOWN_MEMBER_ID (no classic member exists;
 *   Kafka 4.0 answers so for consumer-protocol members and missing groups).
 *   Heartbeat while the coordinator loads is NONE, as Kafka answers it.
 * LeaveGroup is real (classic-group/leave-group.ts): an admin may remove a
 * static consumer-group member by instance id.
 */

function isBlank(groupId: string): boolean {
  return groupId.trim().length === 0;
}

export function joinGroupResponse(request: JoinGroupRequest, errorCode: number): JoinGroupResponse {
  return {
    type: "JoinGroupResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: "",
    skipAssignment: false,
    memberId: request.memberId,
    members: [],
  };
}

/** JoinGroup's service-level checks; 0 when they pass. */
export function joinGroupPrecheckError(request: JoinGroupRequest, broker: BrokerConfig): number {
  if (isBlank(request.groupId)) return ErrorCode.INVALID_GROUP_ID;
  if (
    request.sessionTimeoutMs < broker["group.min.session.timeout.ms"] ||
    request.sessionTimeoutMs > broker["group.max.session.timeout.ms"]
  ) {
    return ErrorCode.INVALID_SESSION_TIMEOUT;
  }
  return ErrorCode.NONE;
}

/** The placeholder answer to a JoinGroup that reached the group's coordinator. */
export function joinGroupPlaceholder(request: JoinGroupRequest): JoinGroupResponse {
  return joinGroupResponse(request, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
}

export function syncGroupResponse(request: SyncGroupRequest, errorCode: number): SyncGroupResponse {
  return {
    type: "SyncGroupResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode,
    protocolType: null,
    protocolName: null,
    assignment: new Uint8Array(0),
  };
}

export function syncGroupPrecheckError(request: SyncGroupRequest): number {
  return isBlank(request.groupId) ? ErrorCode.INVALID_GROUP_ID : ErrorCode.NONE;
}

export function syncGroupPlaceholder(request: SyncGroupRequest): SyncGroupResponse {
  return syncGroupResponse(request, ErrorCode.UNKNOWN_MEMBER_ID);
}

export function classicHeartbeatResponse(request: HeartbeatRequest, errorCode: number): HeartbeatResponse {
  return { type: "HeartbeatResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode };
}

export function classicHeartbeatPrecheckError(request: HeartbeatRequest): number {
  return isBlank(request.groupId) ? ErrorCode.INVALID_GROUP_ID : ErrorCode.NONE;
}

export function classicHeartbeatPlaceholder(request: HeartbeatRequest): HeartbeatResponse {
  return classicHeartbeatResponse(request, ErrorCode.UNKNOWN_MEMBER_ID);
}
