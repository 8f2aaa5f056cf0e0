import { ErrorCode } from "@kcsim/protocol";
import { CONSUMER_PROTOCOL_TYPE } from "../classic-group/classic-group.js";
import { MemberState } from "../reconciliation/member-state.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ConsumerGroup } from "./consumer-group.js";
import type { ConsumerGroupMember } from "./consumer-group-member.js";

/**
 * The checks of the classic APIs on a consumer group (a mixed group, spec
 * 8; GMM `validateConsumerGroupMember`, `throwIfMemberDoesNotUseClassicProtocol`,
 * `throwIfGenerationIdUnmatched`, `throwIfClassicProtocolUnmatched`,
 * `throwIfRebalanceInProgress`). Each throws the error to answer with.
 */

/** The member the request names: by id, or for a static member by instance id (UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID). */
export function validateConsumerGroupMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember {
  if (instanceId === null) {
    const member = group.member(memberId);
    if (member === undefined)
      throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
    return member;
  }
  const member = group.staticMember(instanceId);
  if (member === undefined) {
    throw new CoordinatorError(
      ErrorCode.UNKNOWN_MEMBER_ID,
      `Member with instance id ${instanceId} is not a member of group ${group.groupId}.`,
    );
  }
  if (member.memberId !== memberId) {
    throw new CoordinatorError(
      ErrorCode.FENCED_INSTANCE_ID,
      `Static member ${memberId} with instance id ${instanceId} was fenced by member ${member.memberId}.`,
    );
  }
  return member;
}

/** A consumer-protocol member does not exist for the classic APIs. */
export function throwIfMemberDoesNotUseClassicProtocol(member: ConsumerGroupMember): void {
  if (member.classicMemberMetadata === null) {
    throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${member.memberId} does not use the classic protocol.`);
  }
}

/** A classic member's generation is its member epoch. */
export function throwIfGenerationIdUnmatched(member: ConsumerGroupMember, generationId: number): void {
  if (member.memberEpoch !== generationId) {
    throw new CoordinatorError(
      ErrorCode.ILLEGAL_GENERATION,
      `The request generation id ${generationId} is not equal to the member epoch ${member.memberEpoch} of member ${member.memberId}.`,
    );
  }
}

/** The member's first JoinGroup protocol: the protocol name its JoinGroup response named. */
export function classicProtocolNameOf(member: ConsumerGroupMember): string {
  return member.classicMemberMetadata?.supportedProtocols[0]?.name ?? "";
}

export function throwIfClassicProtocolUnmatched(
  member: ConsumerGroupMember,
  protocolType: string | null,
  protocolName: string | null,
): void {
  if (protocolType !== null && protocolType !== CONSUMER_PROTOCOL_TYPE) {
    throw new CoordinatorError(
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
      `The protocol type ${protocolType} from member ${member.memberId} request is not equal to the group protocol type ${CONSUMER_PROTOCOL_TYPE}.`,
    );
  }
  if (protocolName !== null && protocolName !== classicProtocolNameOf(member)) {
    throw new CoordinatorError(
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
      `The protocol name ${protocolName} from member ${member.memberId} request is not equal to the protocol name ${classicProtocolNameOf(member)} returned in the join response.`,
    );
  }
}

/** Arms the member's deadline to rejoin (its rebalance timeout) unless one is armed; expiry fences it. */
export function scheduleClassicMemberJoinTimeoutIfAbsent(
  op: WriteOp,
  env: CoordinatorEnv,
  groupId: string,
  member: ConsumerGroupMember,
): void {
  env.timers.scheduleIfAbsent(op.ctx, { kind: "classic-member-join", groupId, memberId: member.memberId }, member.rebalanceTimeoutMs);
}

/**
 * The group epoch moved past the member: it must rejoin to catch up
 * (REBALANCE_IN_PROGRESS, with the rejoin deadline armed), unless it is
 * still revoking (it rejoins once its revocation is done).
 */
export function throwIfRebalanceInProgress(op: WriteOp, env: CoordinatorEnv, group: ConsumerGroup, member: ConsumerGroupMember): void {
  if (group.groupEpoch > member.memberEpoch && member.state !== MemberState.UNREVOKED_PARTITIONS) {
    scheduleClassicMemberJoinTimeoutIfAbsent(op, env, group.groupId, member);
    throw new CoordinatorError(
      ErrorCode.REBALANCE_IN_PROGRESS,
      `A new rebalance is triggered in group ${group.groupId} and member ${member.memberId} should rejoin to catch up.`,
    );
  }
}
