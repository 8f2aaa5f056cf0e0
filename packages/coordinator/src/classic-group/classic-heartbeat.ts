import { type ActorId, ErrorCode, type HeartbeatRequest } from "@kcsim/protocol";
import type { CoordinatorEnv } from "../runtime/coordinator-env.js";
import type { WriteOp } from "../runtime/write-op.js";
import type { ClassicGroup } from "./classic-group.js";
import { rescheduleHeartbeat } from "./classic-rebalance.js";
import { classicHeartbeatResponse } from "./classic-responses.js";

/**
 * Heartbeat to a classic group (GMM `classicGroupHeartbeatToClassicGroup`,
 * spec 4.2): DEAD: COORDINATOR_NOT_AVAILABLE; the member check
 * (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID); another generation:
 * ILLEGAL_GENERATION; EMPTY: UNKNOWN_MEMBER_ID; PREPARING:
 * REBALANCE_IN_PROGRESS with the session extended; COMPLETING and STABLE:
 * NONE with the session extended (members may heartbeat right after their
 * JoinGroup response).
 */
export function heartbeatClassicGroup(
  op: WriteOp,
  env: CoordinatorEnv,
  from: ActorId,
  request: HeartbeatRequest,
  group: ClassicGroup,
): void {
  const answer = (errorCode: number): void => op.respond(from, classicHeartbeatResponse(request, errorCode));
  if (group.isInState("DEAD")) {
    answer(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    return;
  }
  const memberError = group.validateMember(request.memberId, request.groupInstanceId);
  const member = group.member(request.memberId);
  if (memberError !== ErrorCode.NONE || member === undefined) {
    answer(memberError === ErrorCode.NONE ? ErrorCode.UNKNOWN_MEMBER_ID : memberError);
    return;
  }
  if (request.generationId !== group.generationId) {
    answer(ErrorCode.ILLEGAL_GENERATION);
    return;
  }
  switch (group.state()) {
    case "EMPTY":
      answer(ErrorCode.UNKNOWN_MEMBER_ID);
      return;
    case "PREPARING_REBALANCE":
      rescheduleHeartbeat(op, env, group, member);
      answer(ErrorCode.REBALANCE_IN_PROGRESS);
      return;
    default:
      rescheduleHeartbeat(op, env, group, member);
      answer(ErrorCode.NONE);
  }
}
