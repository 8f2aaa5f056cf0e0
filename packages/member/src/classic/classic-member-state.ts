import type { ClassicMemberState } from "../observations.js";

/**
 * The classic client's state machine (`AbstractCoordinator.MemberState`
 * plus FATAL): for each state, the states it may be entered from. A
 * self-transition is always allowed (a failed JoinGroup is retried from
 * PREPARING_REBALANCE); anything else is a bug.
 */
const PREVIOUS_VALID_STATES: Readonly<Record<ClassicMemberState, readonly ClassicMemberState[]>> = {
  // Reset after an error, a poll timeout, or a leave.
  UNJOINED: ["PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE"],
  // JoinGroup sent: the first join, a rejoin after an error, or a new rebalance.
  PREPARING_REBALANCE: ["UNJOINED", "COMPLETING_REBALANCE", "STABLE"],
  COMPLETING_REBALANCE: ["PREPARING_REBALANCE"],
  STABLE: ["COMPLETING_REBALANCE"],
  FATAL: ["UNJOINED", "PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE"],
};

export const CLASSIC_MEMBER_STATES: readonly ClassicMemberState[] = Object.keys(PREVIOUS_VALID_STATES) as ClassicMemberState[];

export class IllegalClassicTransitionError extends Error {
  override readonly name = "IllegalClassicTransitionError";
  constructor(
    readonly from: ClassicMemberState,
    readonly to: ClassicMemberState,
  ) {
    super(`Invalid classic member state transition from ${from} to ${to}`);
  }
}

export function isAllowedClassicTransition(from: ClassicMemberState, to: ClassicMemberState): boolean {
  return from === to || PREVIOUS_VALID_STATES[to].includes(from);
}

/** `MemberState.hasNotJoinedGroup`: no heartbeats in these states. */
export function hasNotJoinedGroup(state: ClassicMemberState): boolean {
  return state === "UNJOINED" || state === "PREPARING_REBALANCE";
}

/** `AbstractCoordinator.rebalanceInProgress`. */
export function isRebalanceInProgress(state: ClassicMemberState): boolean {
  return state === "PREPARING_REBALANCE" || state === "COMPLETING_REBALANCE";
}
