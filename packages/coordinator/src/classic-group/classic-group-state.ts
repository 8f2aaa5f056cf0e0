import type { ClassicGroupState } from "../observations.js";

export type { ClassicGroupState };

/** The states each state may be entered from (Kafka's `ClassicGroupState.validPreviousStates`, spec 4.2). */
const VALID_PREVIOUS_STATES: { readonly [state in ClassicGroupState]: readonly ClassicGroupState[] } = {
  EMPTY: ["PREPARING_REBALANCE"],
  PREPARING_REBALANCE: ["STABLE", "COMPLETING_REBALANCE", "EMPTY"],
  COMPLETING_REBALANCE: ["PREPARING_REBALANCE"],
  STABLE: ["COMPLETING_REBALANCE"],
  DEAD: ["STABLE", "PREPARING_REBALANCE", "COMPLETING_REBALANCE", "EMPTY", "DEAD"],
};

/** Whether a classic group in `from` may move to `to`. */
export function isValidClassicTransition(from: ClassicGroupState, to: ClassicGroupState): boolean {
  return VALID_PREVIOUS_STATES[to].includes(from);
}
