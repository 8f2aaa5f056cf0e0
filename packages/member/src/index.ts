/**
 * @kcsim/member: the consumer side of the group protocols. The KIP-848
 * consumer and the classic consumer as actors (their state machines,
 * heartbeats, reconciliation and rebalance callbacks, the poll loop and its
 * application thread, commits), and the classic protocol's client-side
 * assignors, run by the group leader.
 */
export * from "./assignors/assign-client-side.js";
export * from "./assignors/client-assignors.js";
export * from "./assignors/consumer-partition-assignor.js";
export { javaHashMapIterationOrder } from "./assignors/java-hash-order.js";
export { compareMemberInfo, type MemberInfo } from "./assignors/member-order.js";
export * from "./assignors/range-assignor.js";
export * from "./assignors/rebalance-protocol.js";
export * from "./assignors/round-robin-assignor.js";
export { CooperativeStickyAssignor } from "./assignors/sticky/cooperative-sticky-assignor.js";
export { StickyAssignor } from "./assignors/sticky/sticky-assignor.js";
export {
  DEFAULT_GENERATION,
  decodeCooperativeUserData,
  decodeStickyUserData,
  encodeCooperativeUserData,
  encodeStickyUserData,
  encodeStickyUserDataV0,
  type StickyMemberData,
} from "./assignors/sticky/sticky-user-data.js";
export { flattenTopicPartitionList, groupPartitionsByTopic } from "./assignors/topic-partitions.js";
export * from "./assignors/validate-cooperative-assignment.js";
// The classic consumer actor (group.protocol=classic), kind "classic-consumer".
export * from "./classic/classic-consumer-member.js";
export { type ClassicMemberConfig, parseClassicMemberConfig } from "./classic/classic-member-config.js";
export { CLASSIC_MEMBER_STATES, isAllowedClassicTransition } from "./classic/classic-member-state.js";
// The KIP-848 consumer actor (group.protocol=consumer), kind "consumer".
export * from "./consumer/consumer-member.js";
export * from "./consumer/consumer-member-config.js";
export { CorrelationIds } from "./consumer/correlation-ids.js";
export {
  CLIENT_MEMBER_STATES,
  IllegalStateTransitionError,
  isAllowedTransition,
} from "./consumer/member-state.js";
export { SyntheticRecordSource } from "./consumer/synthetic-record-source.js";
// Observations the consumer emits (the contract checkers read).
export type * from "./observations.js";
// What the application does with its batches: consume-process-produce, sinks.
export type { ApplicationMode, OutputConfig, ProcessingConfig, SinkMode } from "./processing/processing-config.js";
export { parseResultValue, type ResultOrigin, resultValueOf } from "./processing/result-value.js";
