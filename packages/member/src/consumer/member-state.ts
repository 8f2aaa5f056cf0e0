import type { ClientMemberState } from "../observations.js";

/**
 * The client member state machine of the KIP-848 consumer (spec 2.1,
 * `MemberState.java`): for each state, the states it may be entered from.
 * A self-transition is always allowed; anything else not listed is a bug.
 */
const PREVIOUS_VALID_STATES: Readonly<Record<ClientMemberState, readonly ClientMemberState[]>> = {
  UNSUBSCRIBED: ["PREPARE_LEAVING", "LEAVING", "FENCED"],
  JOINING: ["FENCED", "UNSUBSCRIBED", "STALE"],
  RECONCILING: ["STABLE", "JOINING", "ACKNOWLEDGING", "RECONCILING"],
  ACKNOWLEDGING: ["RECONCILING"],
  STABLE: ["JOINING", "ACKNOWLEDGING", "RECONCILING"],
  FENCED: ["JOINING", "STABLE", "RECONCILING", "ACKNOWLEDGING", "PREPARE_LEAVING", "LEAVING"],
  PREPARE_LEAVING: ["JOINING", "STABLE", "RECONCILING", "ACKNOWLEDGING", "UNSUBSCRIBED"],
  LEAVING: ["PREPARE_LEAVING"],
  STALE: ["LEAVING"],
  FATAL: ["JOINING", "STABLE", "RECONCILING", "ACKNOWLEDGING", "PREPARE_LEAVING", "LEAVING", "UNSUBSCRIBED"],
};

export const CLIENT_MEMBER_STATES: readonly ClientMemberState[] = Object.keys(PREVIOUS_VALID_STATES) as ClientMemberState[];

/** Thrown on a transition the state machine does not allow: always a bug in the member. */
export class IllegalStateTransitionError extends Error {
  override readonly name = "IllegalStateTransitionError";
  constructor(
    readonly from: ClientMemberState,
    readonly to: ClientMemberState,
  ) {
    super(`Invalid state transition from ${from} to ${to}`);
  }
}

export function isAllowedTransition(from: ClientMemberState, to: ClientMemberState): boolean {
  return from === to || PREVIOUS_VALID_STATES[to].includes(from);
}

export function assertAllowedTransition(from: ClientMemberState, to: ClientMemberState): void {
  if (!isAllowedTransition(from, to)) throw new IllegalStateTransitionError(from, to);
}

/** The member is not part of the group (it sends no heartbeats and ignores their responses). */
export function isNotInGroup(state: ClientMemberState): boolean {
  return state === "UNSUBSCRIBED" || state === "FENCED" || state === "FATAL" || state === "STALE";
}

/** No heartbeats in these states (spec 2.1). */
export const shouldSkipHeartbeat = isNotInGroup;

/** States that send a heartbeat without waiting for the interval (when nothing is in flight). */
export function shouldHeartbeatNow(state: ClientMemberState): boolean {
  return state === "ACKNOWLEDGING" || state === "LEAVING" || state === "JOINING";
}

export function isLeavingGroup(state: ClientMemberState): boolean {
  return state === "PREPARE_LEAVING" || state === "LEAVING";
}

/** States in which a heartbeat response's assignment is taken as the new target. */
export function canHandleNewAssignment(state: ClientMemberState): boolean {
  return state === "STABLE" || state === "JOINING" || state === "ACKNOWLEDGING" || state === "RECONCILING";
}
