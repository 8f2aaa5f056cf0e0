import { type BrokerConfig, ErrorCode, type JoinGroupRequest } from "@kcsim/protocol";

/** JoinGroup v4+: a dynamic member must first obtain its member id (KIP-394, MEMBER_ID_REQUIRED). */
const KNOWN_MEMBER_ID_REQUIRED_VERSION = 4;
/** JoinGroup v9+: the static leader's rejoin in STABLE may skip the assignment (KIP-814). */
const SKIP_ASSIGNMENT_VERSION = 9;

export function isBlankGroupId(groupId: string): boolean {
  return groupId.trim().length === 0;
}

/** JoinGroup's service-level checks (INVALID_GROUP_ID, INVALID_SESSION_TIMEOUT); 0 when they pass. */
export function joinGroupPrecheckError(request: JoinGroupRequest, broker: BrokerConfig): number {
  if (isBlankGroupId(request.groupId)) return ErrorCode.INVALID_GROUP_ID;
  if (
    request.sessionTimeoutMs < broker["group.min.session.timeout.ms"] ||
    request.sessionTimeoutMs > broker["group.max.session.timeout.ms"]
  ) {
    return ErrorCode.INVALID_SESSION_TIMEOUT;
  }
  return ErrorCode.NONE;
}

/** `JoinGroupRequest.requiresKnownMemberId`: a dynamic member joining with "" on v4+. */
export function requiresKnownMemberId(request: JoinGroupRequest): boolean {
  return request.groupInstanceId === null && request.memberId === "" && request.apiVersion >= KNOWN_MEMBER_ID_REQUIRED_VERSION;
}

export function supportsSkippingAssignment(request: JoinGroupRequest): boolean {
  return request.apiVersion >= SKIP_ASSIGNMENT_VERSION;
}

/** The rebalance timeout a JoinGroup asks for (v0 has none: the session timeout stands in). */
export function requestedRebalanceTimeoutMs(request: JoinGroupRequest): number {
  return request.rebalanceTimeoutMs < 0 ? request.sessionTimeoutMs : request.rebalanceTimeoutMs;
}

/** The request's protocols as the group keeps them. */
export function requestedProtocols(request: JoinGroupRequest): { name: string; metadata: Uint8Array }[] {
  return request.protocols.map(({ name, metadata }) => ({ name, metadata }));
}
