import { type Micros, tpKey } from "@kcsim/protocol";
import { ProducerBatch, type ProducerRecord } from "./producer-batch.js";

/** The leader of a partition as the producer's metadata knows it. */
export type LeaderOf = (topic: string, partition: number) => number | undefined;

/** What `ready` found (Kafka's `ReadyCheckResult`). */
export interface ReadyCheck {
  readonly readyNodes: Set<number>;
  /** When to look again for batches that are not ready yet. */
  readonly nextReadyCheckDelay: Micros;
  readonly unknownLeader: boolean;
}

/**
 * Batches waiting to be sent, one queue per partition (Kafka's
 * `RecordAccumulator`). A batch is ready to send when it is full (or a later
 * one exists), or it has lingered linger.ms, or, after a failure, its retry
 * backoff has passed. Draining takes at most one batch per partition per
 * request, rotating the starting partition, within max.request.size.
 */
export class RecordAccumulator {
  readonly #batchSize: number;
  readonly #linger: Micros;
  readonly #queues = new Map<string, ProducerBatch[]>();
  /** Partitions with a batch in flight when max.in.flight.requests.per.connection = 1 (ordering). */
  readonly #muted = new Set<string>();
  #drainIndex = 0;

  constructor(batchSize: number, linger: Micros) {
    this.#batchSize = batchSize;
    this.#linger = linger;
  }

  get batchSize(): number {
    return this.#batchSize;
  }

  /**
   * Appends to the partition's last batch if it has room. Otherwise, with
   * `abortOnNewBatch`, reports that a new batch would be needed (the sticky
   * partitioner then picks again) instead of starting it.
   */
  append(
    topic: string,
    partition: number,
    record: ProducerRecord,
    abortOnNewBatch: boolean,
  ): "appended" | "new-batch" | "abort-for-new-batch" {
    const key = tpKey(topic, partition);
    let queue = this.#queues.get(key);
    const last = queue?.[queue.length - 1];
    if (last?.tryAppend(record)) return "appended";
    if (abortOnNewBatch) return "abort-for-new-batch";
    if (queue === undefined) {
      queue = [];
      this.#queues.set(key, queue);
    }
    queue.push(new ProducerBatch(topic, partition, this.#batchSize, record));
    return "new-batch";
  }

  #backingOff(batch: ProducerBatch, now: Micros): boolean {
    return batch.attempts > 0 && now - batch.lastAttemptAt < batch.retryBackoff;
  }

  ready(leaderOf: LeaderOf, now: Micros): ReadyCheck {
    const readyNodes = new Set<number>();
    let nextReadyCheckDelay = Number.POSITIVE_INFINITY;
    let unknownLeader = false;
    for (const [key, queue] of this.#queues) {
      const batch = queue[0];
      if (batch === undefined) continue;
      const leader = leaderOf(batch.topic, batch.partition);
      if (leader === undefined) {
        unknownLeader = true;
        continue;
      }
      if (readyNodes.has(leader) || this.#muted.has(key)) continue;
      const waited = now - batch.lastAttemptAt;
      const backingOff = this.#backingOff(batch, now);
      const timeToWait = backingOff ? batch.retryBackoff : this.#linger;
      const full = queue.length > 1 || batch.isFull;
      const expired = waited >= timeToWait;
      if ((full || expired) && !backingOff) readyNodes.add(leader);
      else nextReadyCheckDelay = Math.min(nextReadyCheckDelay, Math.max(timeToWait - waited, 0));
    }
    return { readyNodes, nextReadyCheckDelay, unknownLeader };
  }

  /** The batches to send to each ready node now. */
  drain(leaderOf: LeaderOf, nodes: readonly number[], maxRequestSize: number, now: Micros): Map<number, ProducerBatch[]> {
    const out = new Map<number, ProducerBatch[]>();
    const keys = [...this.#queues.keys()];
    if (keys.length === 0) return out;
    const start = this.#drainIndex % keys.length;
    for (const node of nodes) {
      const ready: ProducerBatch[] = [];
      let size = 0;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[(start + i) % keys.length] as string;
        const queue = this.#queues.get(key) as ProducerBatch[];
        const batch = queue[0];
        if (batch === undefined || this.#muted.has(key) || leaderOf(batch.topic, batch.partition) !== node) continue;
        if (this.#backingOff(batch, now)) continue;
        if (size + batch.sizeInBytes > maxRequestSize && ready.length > 0) break;
        queue.shift();
        batch.close();
        size += batch.sizeInBytes;
        ready.push(batch);
      }
      if (ready.length > 0) out.set(node, ready);
    }
    this.#drainIndex = (start + 1) % keys.length;
    return out;
  }

  /** Puts a batch back at the front of its queue for another try. */
  reenqueue(batch: ProducerBatch): void {
    const key = tpKey(batch.topic, batch.partition);
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = [];
      this.#queues.set(key, queue);
    }
    queue.unshift(batch);
  }

  /** Takes out the queued batches older than the delivery timeout (Kafka's `expiredBatches`). */
  expiredBatches(deliveryTimeout: Micros, now: Micros): ProducerBatch[] {
    const expired: ProducerBatch[] = [];
    for (const queue of this.#queues.values()) {
      while (queue.length > 0 && now - (queue[0] as ProducerBatch).createdAt >= deliveryTimeout)
        expired.push(queue.shift() as ProducerBatch);
    }
    return expired;
  }

  /** The earliest creation time of a queued batch (for the delivery timeout), or undefined. */
  oldestCreatedAt(): Micros | undefined {
    let oldest: Micros | undefined;
    for (const queue of this.#queues.values()) {
      const first = queue[0];
      if (first !== undefined) oldest = Math.min(oldest ?? first.createdAt, first.createdAt);
    }
    return oldest;
  }

  mute(topic: string, partition: number): void {
    this.#muted.add(tpKey(topic, partition));
  }

  unmute(topic: string, partition: number): void {
    this.#muted.delete(tpKey(topic, partition));
  }

  get queuedBatches(): number {
    let n = 0;
    for (const queue of this.#queues.values()) n += queue.length;
    return n;
  }
}
