import type { Micros } from "@kcsim/protocol";
import type { FetchMetrics } from "./fetch-metrics.js";

/**
 * Kafka's `FetchMetricsAggregator`: the bytes and records one fetch response
 * delivered to the application, summed over its partitions as each is
 * consumed or dropped; once every partition has reported, the totals are
 * recorded as one fetch (fetch-size, records-per-request, the consumed rates).
 */
export class FetchMetricsAggregator {
  readonly #metrics: FetchMetrics;
  readonly #unrecorded: Set<string>;
  #bytes = 0;
  #records = 0;

  constructor(metrics: FetchMetrics, partitionKeys: Iterable<string>) {
    this.#metrics = metrics;
    this.#unrecorded = new Set(partitionKeys);
  }

  /** A partition of the response is done with: `bytes` and `records` were handed to the application. */
  record(partitionKey: string, bytes: number, records: number, now: Micros): void {
    if (!this.#unrecorded.delete(partitionKey)) return;
    this.#bytes += bytes;
    this.#records += records;
    if (this.#unrecorded.size === 0) {
      this.#metrics.recordBytesFetched(this.#bytes, now);
      this.#metrics.recordRecordsFetched(this.#records, now);
    }
  }
}
