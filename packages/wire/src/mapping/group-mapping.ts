import type {
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
} from "@kcsim/protocol";
import { CONSUMER_PROTOCOL_TYPE } from "@kcsim/protocol";
import type { WireRequestOf, WireResponseOf } from "../apis/index.js";
import type { RequestHeader } from "../header.js";
import { consumerProtocolBytes } from "./consumer-protocol.js";
import { kcsimHeader } from "./mapping-context.js";

/**
 * Classic group RPCs. With the "consumer" protocol type, protocol metadata
 * and assignments are translated between Kafka's binary consumer protocol
 * (real clients) and kcsim's msgpack form (simulated members), so both can
 * share a group; other protocol types pass through as opaque bytes.
 */
export function joinGroupToKcsim(header: RequestHeader, body: WireRequestOf<"JoinGroup">): JoinGroupRequest {
  const consumer = body.protocolType === CONSUMER_PROTOCOL_TYPE;
  return {
    type: "JoinGroupRequest",
    ...kcsimHeader(header),
    groupId: body.groupId,
    sessionTimeoutMs: body.sessionTimeoutMs,
    // v0 has no rebalance timeout: Kafka uses the session timeout (JoinGroupRequest.json).
    rebalanceTimeoutMs: header.apiVersion === 0 ? body.sessionTimeoutMs : body.rebalanceTimeoutMs,
    memberId: body.memberId,
    groupInstanceId: body.groupInstanceId,
    protocolType: body.protocolType,
    protocols: body.protocols.map((p) => ({
      name: p.name,
      metadata: consumer ? consumerProtocolBytes.subscriptionToKcsim(p.metadata) : p.metadata,
    })),
    reason: null,
  };
}

/** `protocolType`/`skipAssignment` (v7+/v9+) are not carried: the coordinator sees the request's apiVersion and must not rely on them below. */
export function joinGroupToWire(response: JoinGroupResponse, consumerProtocol: boolean): WireResponseOf<"JoinGroup"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: response.errorCode,
    generationId: response.generationId,
    // ProtocolName is nullable only from v7; Kafka writes "" below that.
    protocolName: response.protocolName ?? "",
    leader: response.leader,
    memberId: response.memberId,
    members: response.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: consumerProtocol ? consumerProtocolBytes.subscriptionToKafka(m.metadata) : m.metadata,
    })),
  };
}

/** SyncGroup below v5 does not name the protocol type: the server says whether the group runs the consumer protocol. */
export function syncGroupToKcsim(header: RequestHeader, body: WireRequestOf<"SyncGroup">, consumerProtocol: boolean): SyncGroupRequest {
  return {
    type: "SyncGroupRequest",
    ...kcsimHeader(header),
    groupId: body.groupId,
    generationId: body.generationId,
    memberId: body.memberId,
    groupInstanceId: body.groupInstanceId,
    protocolType: null,
    protocolName: null,
    assignments: body.assignments.map((a) => ({
      memberId: a.memberId,
      assignment: consumerProtocol ? consumerProtocolBytes.assignmentToKcsim(a.assignment) : a.assignment,
    })),
  };
}

export function syncGroupToWire(response: SyncGroupResponse, consumerProtocol: boolean): WireResponseOf<"SyncGroup"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: response.errorCode,
    assignment: consumerProtocol ? consumerProtocolBytes.assignmentToKafka(response.assignment) : response.assignment,
  };
}

export function heartbeatToKcsim(header: RequestHeader, body: WireRequestOf<"Heartbeat">): HeartbeatRequest {
  return { type: "HeartbeatRequest", ...kcsimHeader(header), ...body };
}

export function heartbeatToWire(response: HeartbeatResponse): WireResponseOf<"Heartbeat"> {
  return { throttleTimeMs: response.throttleTimeMs, errorCode: response.errorCode };
}

export function leaveGroupToKcsim(header: RequestHeader, body: WireRequestOf<"LeaveGroup">): LeaveGroupRequest {
  const members = header.apiVersion < 3 ? [{ memberId: body.memberId, groupInstanceId: null }] : body.members;
  return {
    type: "LeaveGroupRequest",
    ...kcsimHeader(header),
    groupId: body.groupId,
    members: members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, reason: null })),
  };
}

/** Below v3 there are no per-member results: a member's error becomes the top-level one (as Kafka's LeaveGroupResponse does). */
export function leaveGroupToWire(response: LeaveGroupResponse, version: number): WireResponseOf<"LeaveGroup"> {
  const memberError = response.members.find((m) => m.errorCode !== 0)?.errorCode ?? 0;
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: version < 3 && response.errorCode === 0 ? memberError : response.errorCode,
    members:
      version < 3
        ? []
        : response.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: m.errorCode })),
  };
}
