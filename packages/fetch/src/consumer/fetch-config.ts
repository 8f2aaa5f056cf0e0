import { type ConsumerConfig, IsolationLevel, type Micros, ms } from "@kcsim/protocol";
import type { OffsetResetStrategy } from "./record-source.js";

/**
 * The consumer settings the Fetcher reads (Kafka's `FetchConfig` plus the
 * network and metadata timings), taken once from a resolved ConsumerConfig.
 * Kafka's millisecond settings stay in ms where they go on the wire and are
 * converted to virtual microseconds where they set timers.
 */
export interface FetchConfig {
  readonly clientId: string;
  readonly rackId: string;
  /** fetch.min.bytes */
  readonly minBytes: number;
  /** fetch.max.bytes */
  readonly maxBytes: number;
  /** fetch.max.wait.ms (on the wire, in ms) */
  readonly maxWaitMs: number;
  /** max.partition.fetch.bytes (Kafka's `fetchSize`) */
  readonly fetchSize: number;
  /** max.poll.records */
  readonly maxPollRecords: number;
  /** isolation.level as Kafka encodes it (0 read_uncommitted, 1 read_committed) */
  readonly isolationLevel: number;
  /** auto.offset.reset: the strategy applied on OFFSET_OUT_OF_RANGE */
  readonly defaultResetStrategy: OffsetResetStrategy;
  /** request.timeout.ms */
  readonly requestTimeout: Micros;
  /** metadata.max.age.ms */
  readonly metadataMaxAge: Micros;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly reconnectBackoffMs: number;
  readonly reconnectBackoffMaxMs: number;
}

function resetStrategyOf(value: string): OffsetResetStrategy {
  if (value === "earliest" || value === "latest" || value === "none") return value;
  throw new RangeError(`auto.offset.reset ${JSON.stringify(value)} is not supported by the fetcher`);
}

export function fetchConfigOf(config: ConsumerConfig): FetchConfig {
  return {
    clientId: config["client.id"],
    rackId: config["client.rack"],
    minBytes: config["fetch.min.bytes"],
    maxBytes: config["fetch.max.bytes"],
    maxWaitMs: config["fetch.max.wait.ms"],
    fetchSize: config["max.partition.fetch.bytes"],
    maxPollRecords: config["max.poll.records"],
    isolationLevel: config["isolation.level"] === "read_committed" ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED,
    defaultResetStrategy: resetStrategyOf(config["auto.offset.reset"]),
    requestTimeout: ms(config["request.timeout.ms"]),
    metadataMaxAge: ms(config["metadata.max.age.ms"]),
    retryBackoffMs: config["retry.backoff.ms"],
    retryBackoffMaxMs: config["retry.backoff.max.ms"],
    reconnectBackoffMs: config["reconnect.backoff.ms"],
    reconnectBackoffMaxMs: config["reconnect.backoff.max.ms"],
  };
}
