/**
 * @kcsim/coordinator: the group coordinator.
 *
 * - observations: what the coordinator emits (the contract checkers read);
 * - assignors/: the KIP-848 server-side assignors (`uniform`, `range`; spec 3)
 *   and inputs shaped like Kafka's assignor benchmark;
 * - reconciliation/: the member reconciliation engine and the heartbeat
 *   member-epoch check (spec 1.3, 1.5);
 * - topic-id-partitions: assignments by topic id, shared by both;
 * - actor/: the group-coordinator actor (createGroupCoordinator), its config,
 *   placement and FindCoordinator;
 * - consumer-group/: the KIP-848 group and member model and the heartbeat;
 * - records/: the __consumer_offsets records and their replay;
 * - offsets/: the offset store, OffsetCommit and OffsetFetch;
 * - classic-group/: classic groups (JoinGroup/SyncGroup/Heartbeat/LeaveGroup,
 *   the rebalance state machine, static membership) and the embedded
 *   consumer protocol as the coordinator reads it;
 * - migration/: online upgrade and downgrade between classic and consumer
 *   groups (group.consumer.migration.policy);
 * - runtime/: write operations, batched appends, errors, observation builders;
 * - transactions/: the transaction coordinator actor (createTransactionCoordinator,
 *   kind "transaction-coordinator"): InitProducerId, AddPartitionsToTxn,
 *   AddOffsetsToTxn, EndTxn, transaction markers, timeouts, the
 *   `__transaction_state` log. The group coordinator's side of
 *   transactions (TxnOffsetCommit, pending offsets, WriteTxnMarkers for
 *   `__consumer_offsets`) is in offsets/ and records/.
 */

export * from "./actor/coordinator-placement.js";
export * from "./actor/find-coordinator.js";
export * from "./actor/group-coordinator.js";
export * from "./actor/group-coordinator-config.js";
export * from "./assignors/benchmark-inputs.js";
export * from "./assignors/changed-assignments.js";
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
export * from "./classic-group/classic-group.js";
export * from "./classic-group/classic-group-member.js";
export * from "./classic-group/classic-group-state.js";
export * from "./committed-partitions.js";
export * from "./consumer-group/consumer-group.js";
export * from "./consumer-group/consumer-group-member.js";
export * from "./consumer-group/subscription-metadata.js";
export * from "./groups/group.js";
export * from "./groups/group-store.js";
export * from "./metadata/metadata-image.js";
export type * from "./observations.js";
export * from "./offsets/offset-store.js";
export * from "./offsets/pending-transactional-offsets.js";
export * from "./offsets/transactional-producers.js";
export * from "./reconciliation/current-assignment-builder.js";
export * from "./reconciliation/member-state.js";
export * from "./reconciliation/validate-member-epoch.js";
export * from "./records/classic-group-records.js";
export * from "./records/coordinator-record.js";
export * from "./records/replay.js";
export * from "./records/transaction-records.js";
export * from "./runtime/coordinator-error.js";
export * from "./runtime/coordinator-state.js";
export * from "./runtime/group-timers.js";
export * from "./topic-id-partitions.js";
export * from "./transactions/producer-id-manager.js";
export * from "./transactions/transaction-coordinator-actor.js";
export * from "./transactions/transaction-coordinator-config.js";
export * from "./transactions/transaction-log-records.js";
export * from "./transactions/transaction-metadata.js";
export * from "./transactions/transaction-version.js";
