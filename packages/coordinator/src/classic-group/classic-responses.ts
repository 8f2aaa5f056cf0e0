import type {
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  JoinGroupResponseMember,
  SyncGroupRequest,
  SyncGroupResponse,
} from "@kcsim/protocol";
import { EMPTY_ASSIGNMENT } from "./classic-group-member.js";

/** The fields of a JoinGroup answer; the rest take Kafka's defaults (no generation, no protocol, no leader). */
export interface JoinGroupAnswer {
  readonly memberId: string;
  readonly errorCode?: number;
  readonly generationId?: number;
  readonly protocolType?: string | null;
  readonly protocolName?: string | null;
  readonly leader?: string | null;
  readonly skipAssignment?: boolean;
  readonly members?: readonly JoinGroupResponseMember[];
}

export function joinGroupResponse(request: JoinGroupRequest, answer: JoinGroupAnswer): JoinGroupResponse {
  return {
    type: "JoinGroupResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode: answer.errorCode ?? 0,
    generationId: answer.generationId ?? -1,
    protocolType: answer.protocolType ?? null,
    protocolName: answer.protocolName ?? null,
    leader: answer.leader ?? "",
    skipAssignment: answer.skipAssignment ?? false,
    memberId: answer.memberId,
    members: answer.members === undefined ? [] : [...answer.members],
  };
}

/** An error answer echoing the request's member id (unless told otherwise). */
export function joinGroupErrorResponse(request: JoinGroupRequest, errorCode: number, memberId = request.memberId): JoinGroupResponse {
  return joinGroupResponse(request, { memberId, errorCode });
}

/** The fields of a successful SyncGroup answer. */
export interface SyncGroupAnswer {
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly assignment: Uint8Array;
}

export function syncGroupResponse(request: SyncGroupRequest, errorCode: number, answer?: SyncGroupAnswer): SyncGroupResponse {
  return {
    type: "SyncGroupResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode,
    protocolType: answer?.protocolType ?? null,
    protocolName: answer?.protocolName ?? null,
    assignment: answer?.assignment ?? EMPTY_ASSIGNMENT,
  };
}

export function classicHeartbeatResponse(request: HeartbeatRequest, errorCode: number): HeartbeatResponse {
  return { type: "HeartbeatResponse", correlationId: request.correlationId, throttleTimeMs: 0, errorCode };
}
