/**
 * @kcsim/fetch: the fetch path. The KIP-227 fetch sessions (broker cache
 * and manager, client handler), the Fetch wire-size model, the client-side
 * fetcher, and the server side of the data path: brokers, the KRaft
 * controller and producers.
 */

export * from "./broker/broker-actor.js";
export * from "./broker/broker-actor-config.js";
export { BROKER_PRODUCER_ID_BASE } from "./broker/producer-id-manager.js";
export * from "./cluster/cluster-layout.js";
// The client-side fetcher (a RecordSource for the consumer member).
export * from "./consumer/cluster-metadata.js";
export * from "./consumer/fetch-config.js";
export * from "./consumer/fetch-metrics.js";
export * from "./consumer/fetcher.js";
export * from "./consumer/polled-records.js";
export { recordRangesOf } from "./consumer/record-ranges.js";
export * from "./consumer/record-source.js";
export * from "./controller/controller-actor.js";
export * from "./controller/controller-config.js";
// Observations of the data path (the contract checkers read).
export type * from "./observations.js";
export * from "./producer/built-in-partitioner.js";
export * from "./producer/idempotence-config.js";
export * from "./producer/murmur2.js";
export * from "./producer/producer-actor.js";
export * from "./producer/producer-actor-config.js";
export * from "./producer/producer-client.js";
export * from "./producer/producer-error.js";
export * from "./producer/producer-id-and-epoch.js";
export * from "./producer/send-handle.js";
export * from "./producer/transaction-state.js";
export * from "./producer/transactional-producer.js";
export * from "./producer/transactional-result.js";
export type { GroupMetadata, TransactionOffset } from "./producer/txn-request-handler.js";
export * from "./producer/workload.js";
// Transaction markers (control records) as partition logs hold them.
export * from "./records/end-transaction-marker.js";
export * from "./session/cached-partition.js";
export * from "./session/fetch-context.js";
export * from "./session/fetch-manager.js";
export * from "./session/fetch-metadata.js";
export * from "./session/fetch-request-data.js";
export * from "./session/fetch-request-for.js";
export * from "./session/fetch-response-for.js";
export * from "./session/fetch-session.js";
export * from "./session/fetch-session-cache.js";
export * from "./session/fetch-session-cache-shard.js";
export * from "./session/fetch-session-handler.js";
export * from "./session/fetch-versions.js";
export * from "./session/fetch-wire-size.js";
export * from "./session/partition-read-result.js";
export * from "./session/topic-id-partition.js";
export * from "./session/virtual-time-meter.js";
