import { type ActorId, ErrorCode, type HeartbeatRequest } from "@kcsim/protocol";
import { classicHeartbeatResponse } from "../classic-group/classic-responses.js";
import { MemberState } from "../reconciliation/member-state.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import type { WriteOp } from "../runtime/write-op.js";
import {
  scheduleClassicMemberJoinTimeoutIfAbsent,
  throwIfGenerationIdUnmatched,
  throwIfMemberDoesNotUseClassicProtocol,
  validateConsumerGroupMember,
} from "./classic-member-checks.js";
import type { ConsumerGroup } from "./consumer-group.js";

/**
 * Heartbeat from a classic member of a consumer group (GMM
 * `classicGroupHeartbeatToConsumerGroup`, spec 8): after the member,
 * protocol and generation (= member epoch; else ILLEGAL_GENERATION) checks
 * its session is extended with its classic session timeout. It must rejoin
 * (REBALANCE_IN_PROGRESS, rejoin deadline armed) when the group epoch moved
 * past its epoch, when it has partitions to revoke, or when it waits for
 * partitions that have all become free.
 */
export function classicMemberHeartbeat(
  op: WriteOp,
  env: CoordinatorEnv,
  from: ActorId,
  request: HeartbeatRequest,
  group: ConsumerGroup,
): void {
  const member = validateConsumerGroupMember(group, request.memberId, request.groupInstanceId);
  throwIfMemberDoesNotUseClassicProtocol(member);
  throwIfGenerationIdUnmatched(member, request.generationId);
  env.timers.scheduleSession(op.ctx, group.groupId, member.memberId, member.classicMemberMetadata?.sessionTimeoutMs ?? 0);
  const mustRejoin =
    member.memberEpoch < group.groupEpoch ||
    member.state === MemberState.UNREVOKED_PARTITIONS ||
    (member.state === MemberState.UNRELEASED_PARTITIONS && !group.waitingOnUnreleasedPartition(member));
  if (mustRejoin) scheduleClassicMemberJoinTimeoutIfAbsent(op, env, group.groupId, member);
  op.respond(from, classicHeartbeatResponse(request, mustRejoin ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE));
}
