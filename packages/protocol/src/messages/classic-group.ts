import type { Static } from "@sinclair/typebox";
import { Bool, Bytes, Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/**
 * The classic group RPCs (spec 4.1): JoinGroup (11), SyncGroup (14),
 * Heartbeat (12), LeaveGroup (13). Protocol metadata and assignments are
 * opaque bytes, as on the wire; the embedded consumer protocol lives in
 * `consumer-protocol.ts`.
 */
export const JoinGroupRequest = request("JoinGroupRequest", {
  groupId: Str,
  sessionTimeoutMs: Int,
  rebalanceTimeoutMs: Int,
  memberId: Str,
  groupInstanceId: Nullable(Str),
  protocolType: Str,
  protocols: List(Struct({ name: Str, metadata: Bytes })),
  reason: Nullable(Str),
});
export type JoinGroupRequest = Static<typeof JoinGroupRequest>;

export const JoinGroupResponseMember = Struct({ memberId: Str, groupInstanceId: Nullable(Str), metadata: Bytes });
export type JoinGroupResponseMember = Static<typeof JoinGroupResponseMember>;

export const JoinGroupResponse = response("JoinGroupResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  generationId: Int,
  protocolType: Nullable(Str),
  protocolName: Nullable(Str),
  leader: Str,
  skipAssignment: Bool,
  memberId: Str,
  members: List(JoinGroupResponseMember),
});
export type JoinGroupResponse = Static<typeof JoinGroupResponse>;

export const SyncGroupRequest = request("SyncGroupRequest", {
  groupId: Str,
  generationId: Int,
  memberId: Str,
  groupInstanceId: Nullable(Str),
  protocolType: Nullable(Str),
  protocolName: Nullable(Str),
  assignments: List(Struct({ memberId: Str, assignment: Bytes })),
});
export type SyncGroupRequest = Static<typeof SyncGroupRequest>;

export const SyncGroupResponse = response("SyncGroupResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  protocolType: Nullable(Str),
  protocolName: Nullable(Str),
  assignment: Bytes,
});
export type SyncGroupResponse = Static<typeof SyncGroupResponse>;

export const HeartbeatRequest = request("HeartbeatRequest", {
  groupId: Str,
  generationId: Int,
  memberId: Str,
  groupInstanceId: Nullable(Str),
});
export type HeartbeatRequest = Static<typeof HeartbeatRequest>;

export const HeartbeatResponse = response("HeartbeatResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
});
export type HeartbeatResponse = Static<typeof HeartbeatResponse>;

export const LeaveGroupRequest = request("LeaveGroupRequest", {
  groupId: Str,
  members: List(Struct({ memberId: Str, groupInstanceId: Nullable(Str), reason: Nullable(Str) })),
});
export type LeaveGroupRequest = Static<typeof LeaveGroupRequest>;

export const LeaveGroupResponse = response("LeaveGroupResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  members: List(Struct({ memberId: Str, groupInstanceId: Nullable(Str), errorCode: Int })),
});
export type LeaveGroupResponse = Static<typeof LeaveGroupResponse>;
