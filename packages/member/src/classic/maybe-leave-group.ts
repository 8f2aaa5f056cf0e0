import { type Context, errorName } from "@kcsim/protocol";
import type { CoordinatorManager } from "../consumer/coordinator-manager.js";
import type { RequestChannel } from "../consumer/request-channel.js";
import type { ClassicMembership } from "./classic-membership.js";

/** `JoinGroupRequest.maybeTruncateReason`. */
const MAX_REASON_LENGTH = 255;

/**
 * `AbstractCoordinator.maybeLeaveGroup`: a dynamic member that is in the
 * group (a member id, not UNJOINED, a known coordinator) sends one
 * LeaveGroup, never retried; a static member (group.instance.id) never
 * does: only its session timeout (or an admin) removes it. Either way the
 * member then forgets its generation and member id and will rejoin from
 * scratch.
 */
export function maybeLeaveGroup(
  membership: ClassicMembership,
  coordinator: CoordinatorManager,
  channel: RequestChannel,
  reason: string,
  ctx: Context,
): void {
  const target = coordinator.coordinator;
  const memberId = membership.memberId;
  if (membership.isDynamic && target !== null && membership.state !== "UNJOINED" && !membership.isFatal && memberId !== "") {
    ctx.log.info("sending LeaveGroup", { memberId, reason });
    channel.send(
      ctx,
      target,
      {
        type: "LeaveGroupRequest",
        correlationId: channel.nextCorrelationId(),
        apiVersion: 5,
        clientId: channel.clientId,
        groupId: membership.groupId,
        members: [{ memberId, groupInstanceId: null, reason: reason.slice(0, MAX_REASON_LENGTH) }],
      },
      "LeaveGroupResponse",
      (response, ctx) => {
        if (response.errorCode !== 0) ctx.log.warn("LeaveGroup failed", { error: errorName(response.errorCode) });
      },
      (ctx) => coordinator.markUnknown("LeaveGroup got no response", ctx),
    );
  }
  membership.resetStateAndRejoin("consumer pro-actively leaving the group", true, ctx);
}
