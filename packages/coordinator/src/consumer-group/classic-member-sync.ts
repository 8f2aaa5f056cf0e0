import { type ActorId, ErrorCode, type SyncGroupRequest } from "@kcsim/protocol";
import { syncGroupResponse } from "../classic-group/classic-responses.js";
import { encodeConsumerAssignment, toTopicPartitionList } from "../classic-group/embedded-consumer-protocol.js";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import { classicMemberSyncTimerName } from "../runtime/group-timers.js";
import type { WriteOp } from "../runtime/write-op.js";
import {
  throwIfClassicProtocolUnmatched,
  throwIfGenerationIdUnmatched,
  throwIfMemberDoesNotUseClassicProtocol,
  throwIfRebalanceInProgress,
  validateConsumerGroupMember,
} from "./classic-member-checks.js";
import type { ConsumerGroup } from "./consumer-group.js";

/**
 * SyncGroup from a classic member of a consumer group (GMM
 * `classicGroupSyncToConsumerGroup`, spec 8): after the member, protocol,
 * generation and rebalance checks, the answer is the member's current
 * assignment (what the server-side reconciliation lets it own now),
 * serialized in its subscription's version. The sync deadline is cancelled
 * and its session restarted with its classic session timeout.
 */
export function classicMemberSync(op: WriteOp, env: CoordinatorEnv, from: ActorId, request: SyncGroupRequest, group: ConsumerGroup): void {
  const member = validateConsumerGroupMember(group, request.memberId, request.groupInstanceId);
  throwIfMemberDoesNotUseClassicProtocol(member);
  throwIfGenerationIdUnmatched(member, request.generationId);
  throwIfClassicProtocolUnmatched(member, request.protocolType, request.protocolName);
  throwIfRebalanceInProgress(op, env, group, member);
  env.timers.cancel(op.ctx, classicMemberSyncTimerName(group.groupId, member.memberId));
  env.timers.scheduleSession(op.ctx, group.groupId, member.memberId, member.classicMemberMetadata?.sessionTimeoutMs ?? 0);
  const protocols = member.classicMemberMetadata?.supportedProtocols ?? [];
  const assignment = encodeConsumerAssignment(
    toTopicPartitionList(member.assignedPartitions, op.state.image),
    protocols[0]?.metadata ?? new Uint8Array(0),
  );
  op.respond(
    from,
    syncGroupResponse(request, ErrorCode.NONE, {
      protocolType: request.protocolType,
      protocolName: request.protocolName,
      assignment,
    }),
  );
}
