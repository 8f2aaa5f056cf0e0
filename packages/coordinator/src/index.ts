/**
 * @kcsim/coordinator: the group coordinator.
 */

// Observations the coordinator emits (the contract checkers read).
export type * from "./observations.js";
