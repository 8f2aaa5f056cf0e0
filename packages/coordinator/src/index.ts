/**
 * @kcsim/coordinator: the group coordinator.
 *
 * - observations: what the coordinator emits (the contract checkers read);
 * - assignors/: the KIP-848 server-side assignors (`uniform`, `range`; spec 3)
 *   and inputs shaped like Kafka's assignor benchmark;
 * - reconciliation/: the member reconciliation engine and the heartbeat
 *   member-epoch check (spec 1.3, 1.5);
 * - topic-id-partitions: assignments by topic id, shared by both.
 */
export * from "./assignors/benchmark-inputs.js";
export * from "./assignors/group-assignment.js";
export * from "./assignors/group-spec.js";
export * from "./assignors/member-assignment-balancer.js";
export * from "./assignors/partition-assignor-error.js";
export * from "./assignors/range-assignor.js";
export * from "./assignors/server-assignor.js";
export * from "./assignors/server-assignors.js";
export * from "./assignors/subscribed-topic-describer.js";
export * from "./assignors/topic-id-order.js";
export * from "./assignors/uniform-assignor.js";
export * from "./assignors/uniform-heterogeneous-assignment-builder.js";
export * from "./assignors/uniform-homogeneous-assignment-builder.js";
export type * from "./observations.js";
export * from "./reconciliation/current-assignment-builder.js";
export * from "./reconciliation/member-state.js";
export * from "./reconciliation/validate-member-epoch.js";
export * from "./topic-id-partitions.js";
