/**
 * @kcsim/fetch: the fetch path. For now the KIP-227 fetch sessions (broker
 * cache and manager, client handler) and the Fetch wire-size model.
 */

export * from "./consumer/record-source.js";
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
