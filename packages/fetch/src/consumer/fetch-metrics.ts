import { type Micros, type TopicPartition, toMs, tpKey } from "@kcsim/protocol";
import {
  CumulativeCount,
  CumulativeSum,
  LastValue,
  type MeasurableStat,
  Rate,
  WindowedAvg,
  WindowedCount,
  WindowedMax,
  WindowedMin,
} from "./sampled-stat.js";

/** The metric group Kafka files these under. */
export const FETCH_MANAGER_METRIC_GROUP = "consumer-fetch-manager-metrics";

/** A metric value as JSON: Kafka's NaN (a stat with no samples) becomes null. */
export type MetricValue = number | null;

/** The consumer's fetch metrics by Kafka name (group consumer-fetch-manager-metrics). */
export interface FetchManagerMetrics {
  readonly "fetch-size-avg": MetricValue;
  readonly "fetch-size-max": MetricValue;
  readonly "bytes-consumed-rate": MetricValue;
  readonly "bytes-consumed-total": MetricValue;
  readonly "records-per-request-avg": MetricValue;
  readonly "records-consumed-rate": MetricValue;
  readonly "records-consumed-total": MetricValue;
  readonly "fetch-latency-avg": MetricValue;
  readonly "fetch-latency-max": MetricValue;
  readonly "fetch-rate": MetricValue;
  readonly "fetch-total": MetricValue;
  readonly "records-lag-max": MetricValue;
  readonly "records-lead-min": MetricValue;
  readonly "fetch-throttle-time-avg": MetricValue;
  readonly "fetch-throttle-time-max": MetricValue;
}

/** Per-partition metrics (Kafka tags them topic=..., partition=...). */
export interface PartitionFetchMetrics {
  readonly topic: string;
  readonly partition: number;
  readonly "records-lag": MetricValue;
  readonly "records-lag-max": MetricValue;
  readonly "records-lag-avg": MetricValue;
  readonly "records-lead": MetricValue;
  readonly "records-lead-min": MetricValue;
  readonly "records-lead-avg": MetricValue;
}

/** What `Fetcher.metrics()` returns: plain JSON. */
export interface FetchMetricsSnapshot {
  readonly group: typeof FETCH_MANAGER_METRIC_GROUP;
  readonly metrics: FetchManagerMetrics;
  /** By `topic-partition`, for the partitions currently assigned that have recorded lag or lead. */
  readonly partitions: { readonly [partition: string]: PartitionFetchMetrics };
}

/** A Kafka sensor: one recorded value feeds several stats. */
class Sensor {
  readonly #stats: readonly MeasurableStat[];
  constructor(...stats: MeasurableStat[]) {
    this.#stats = stats;
  }
  record(value: number, nowMs: number): void {
    for (const stat of this.#stats) stat.record(value, nowMs);
  }
}

interface PartitionSensors {
  readonly partition: TopicPartition;
  readonly lag: { readonly value: LastValue; readonly max: WindowedMax; readonly avg: WindowedAvg; recorded: boolean };
  readonly lead: { readonly value: LastValue; readonly min: WindowedMin; readonly avg: WindowedAvg; recorded: boolean };
}

function value(measured: number): MetricValue {
  return Number.isFinite(measured) ? measured : null;
}

/**
 * Kafka's `FetchMetricsManager` and the throttle-time sensor: what the
 * fetcher records, kept as Kafka's sensors keep it, measured over virtual
 * time (rates are per virtual second).
 */
export class FetchMetrics {
  readonly #fetchSizeAvg = new WindowedAvg();
  readonly #fetchSizeMax = new WindowedMax();
  readonly #bytesConsumedRate = new Rate();
  readonly #bytesConsumedTotal = new CumulativeSum();
  readonly #bytesFetched = new Sensor(this.#fetchSizeAvg, this.#fetchSizeMax, this.#bytesConsumedRate, this.#bytesConsumedTotal);

  readonly #recordsPerRequestAvg = new WindowedAvg();
  readonly #recordsConsumedRate = new Rate();
  readonly #recordsConsumedTotal = new CumulativeSum();
  readonly #recordsFetched = new Sensor(this.#recordsPerRequestAvg, this.#recordsConsumedRate, this.#recordsConsumedTotal);

  readonly #fetchLatencyAvg = new WindowedAvg();
  readonly #fetchLatencyMax = new WindowedMax();
  readonly #fetchRate = new Rate(new WindowedCount());
  readonly #fetchTotal = new CumulativeCount();
  readonly #fetchLatency = new Sensor(this.#fetchLatencyAvg, this.#fetchLatencyMax, this.#fetchRate, this.#fetchTotal);

  readonly #recordsLagMax = new WindowedMax();
  readonly #recordsLeadMin = new WindowedMin();

  readonly #throttleTimeAvg = new WindowedAvg();
  readonly #throttleTimeMax = new WindowedMax();
  readonly #throttleTime = new Sensor(this.#throttleTimeAvg, this.#throttleTimeMax);

  readonly #partitions = new Map<string, PartitionSensors>();

  /** The record bytes of one fetch response, once all its partitions were consumed or dropped. */
  recordBytesFetched(bytes: number, now: Micros): void {
    this.#bytesFetched.record(bytes, toMs(now));
  }

  /** The records of one fetch response, once all its partitions were consumed or dropped. */
  recordRecordsFetched(records: number, now: Micros): void {
    this.#recordsFetched.record(records, toMs(now));
  }

  recordLatency(latency: Micros, now: Micros): void {
    this.#fetchLatency.record(toMs(latency), toMs(now));
  }

  recordThrottleTime(throttleTimeMs: number, now: Micros): void {
    this.#throttleTime.record(throttleTimeMs, toMs(now));
  }

  recordPartitionLag(partition: TopicPartition, lag: number, now: Micros): void {
    const nowMs = toMs(now);
    this.#recordsLagMax.record(lag, nowMs);
    const sensors = this.#sensorsOf(partition).lag;
    sensors.value.record(lag);
    sensors.max.record(lag, nowMs);
    sensors.avg.record(lag, nowMs);
    sensors.recorded = true;
  }

  recordPartitionLead(partition: TopicPartition, lead: number, now: Micros): void {
    const nowMs = toMs(now);
    this.#recordsLeadMin.record(lead, nowMs);
    const sensors = this.#sensorsOf(partition).lead;
    sensors.value.record(lead);
    sensors.min.record(lead, nowMs);
    sensors.avg.record(lead, nowMs);
    sensors.recorded = true;
  }

  /** The assignment changed: per-partition sensors of partitions no longer assigned are removed (Kafka's `maybeUpdateAssignment`). */
  retainPartitions(assigned: ReadonlySet<string>): void {
    for (const key of [...this.#partitions.keys()]) if (!assigned.has(key)) this.#partitions.delete(key);
  }

  snapshot(now: Micros): FetchMetricsSnapshot {
    const nowMs = toMs(now);
    const partitions: Record<string, PartitionFetchMetrics> = {};
    for (const [key, sensors] of this.#partitions) {
      partitions[key] = {
        topic: sensors.partition.topic,
        partition: sensors.partition.partition,
        "records-lag": sensors.lag.recorded ? sensors.lag.value.measure() : null,
        "records-lag-max": value(sensors.lag.max.measure(nowMs)),
        "records-lag-avg": value(sensors.lag.avg.measure(nowMs)),
        "records-lead": sensors.lead.recorded ? sensors.lead.value.measure() : null,
        "records-lead-min": value(sensors.lead.min.measure(nowMs)),
        "records-lead-avg": value(sensors.lead.avg.measure(nowMs)),
      };
    }
    return {
      group: FETCH_MANAGER_METRIC_GROUP,
      metrics: {
        "fetch-size-avg": value(this.#fetchSizeAvg.measure(nowMs)),
        "fetch-size-max": value(this.#fetchSizeMax.measure(nowMs)),
        "bytes-consumed-rate": value(this.#bytesConsumedRate.measure(nowMs)),
        "bytes-consumed-total": this.#bytesConsumedTotal.measure(),
        "records-per-request-avg": value(this.#recordsPerRequestAvg.measure(nowMs)),
        "records-consumed-rate": value(this.#recordsConsumedRate.measure(nowMs)),
        "records-consumed-total": this.#recordsConsumedTotal.measure(),
        "fetch-latency-avg": value(this.#fetchLatencyAvg.measure(nowMs)),
        "fetch-latency-max": value(this.#fetchLatencyMax.measure(nowMs)),
        "fetch-rate": value(this.#fetchRate.measure(nowMs)),
        "fetch-total": this.#fetchTotal.measure(),
        "records-lag-max": value(this.#recordsLagMax.measure(nowMs)),
        "records-lead-min": value(this.#recordsLeadMin.measure(nowMs)),
        "fetch-throttle-time-avg": value(this.#throttleTimeAvg.measure(nowMs)),
        "fetch-throttle-time-max": value(this.#throttleTimeMax.measure(nowMs)),
      },
      partitions,
    };
  }

  #sensorsOf(partition: TopicPartition): PartitionSensors {
    const key = tpKey(partition.topic, partition.partition);
    let sensors = this.#partitions.get(key);
    if (sensors === undefined) {
      sensors = {
        partition: { topic: partition.topic, partition: partition.partition },
        lag: { value: new LastValue(), max: new WindowedMax(), avg: new WindowedAvg(), recorded: false },
        lead: { value: new LastValue(), min: new WindowedMin(), avg: new WindowedAvg(), recorded: false },
      };
      this.#partitions.set(key, sensors);
    }
    return sensors;
  }
}
