import { type Micros, tpKey } from "@kcsim/protocol";
import { ProducerBatch, type ProducerRecord } from "./producer-batch.js";
import type { SendHandle } from "./send-handle.js";

/** The leader of a partition as the producer's metadata knows it. */
export type LeaderOf = (topic: string, partition: number) => number | undefined;

/**
 * What the idempotent/transactional state says about draining (Kafka's
 * transaction manager hooks in `RecordAccumulator.drain`): whether a
 * partition's first batch must wait, and what happens to a batch drained.
 */
export interface DrainGate {
  shouldStopDrain(first: ProducerBatch): boolean;
  onDrain(batch: ProducerBatch): void;
}

const OPEN_GATE: DrainGate = { shouldStopDrain: () => false, onDrain: () => {} };

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
 * While a flush is on (a transaction being completed), every batch is
 * ready at once. With idempotence a gate may hold a partition back, and a
 * retried batch goes back in sequence order.
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
   * partitioner then picks again) instead of starting it. Returns the batch
   * the record went into.
   */
  append(
    topic: string,
    partition: number,
    record: ProducerRecord,
    abortOnNewBatch: boolean,
    handle: SendHandle | null = null,
  ): { readonly outcome: "appended" | "new-batch"; readonly batch: ProducerBatch } | { readonly outcome: "abort-for-new-batch" } {
    const key = tpKey(topic, partition);
    let queue = this.#queues.get(key);
    const last = queue?.[queue.length - 1];
    if (last?.tryAppend(record, handle)) return { outcome: "appended", batch: last };
    if (abortOnNewBatch) return { outcome: "abort-for-new-batch" };
    if (queue === undefined) {
      queue = [];
      this.#queues.set(key, queue);
    }
    const batch = new ProducerBatch(topic, partition, this.#batchSize, record, handle);
    queue.push(batch);
    return { outcome: "new-batch", batch };
  }

  #backingOff(batch: ProducerBatch, now: Micros): boolean {
    return batch.attempts > 0 && now - batch.lastAttemptAt < batch.retryBackoff;
  }

  /** Whether any batch is queued. */
  get hasUndrained(): boolean {
    for (const queue of this.#queues.values()) if (queue.length > 0) return true;
    return false;
  }

  ready(leaderOf: LeaderOf, now: Micros, gate: DrainGate = OPEN_GATE, flushing = false): ReadyCheck {
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
      // Held back until something else moves (an answer, a partition added to the transaction): no wake-up of its own.
      if (gate.shouldStopDrain(batch)) continue;
      const waited = now - batch.lastAttemptAt;
      const backingOff = this.#backingOff(batch, now);
      const timeToWait = backingOff ? batch.retryBackoff : this.#linger;
      const full = queue.length > 1 || batch.isFull || flushing;
      const expired = waited >= timeToWait;
      if ((full || expired) && !backingOff) readyNodes.add(leader);
      else nextReadyCheckDelay = Math.min(nextReadyCheckDelay, Math.max(timeToWait - waited, 0));
    }
    return { readyNodes, nextReadyCheckDelay, unknownLeader };
  }

  /** The batches to send to each ready node now. */
  drain(
    leaderOf: LeaderOf,
    nodes: readonly number[],
    maxRequestSize: number,
    now: Micros,
    gate: DrainGate = OPEN_GATE,
  ): Map<number, ProducerBatch[]> {
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
        if (gate.shouldStopDrain(batch)) continue;
        if (size + batch.sizeInBytes > maxRequestSize && ready.length > 0) break;
        queue.shift();
        batch.close();
        gate.onDrain(batch);
        size += batch.sizeInBytes;
        ready.push(batch);
      }
      if (ready.length > 0) out.set(node, ready);
    }
    this.#drainIndex = (start + 1) % keys.length;
    return out;
  }

  /**
   * Puts a batch back at the front of its queue for another try; a batch
   * with a sequence goes among the retried batches at the front in
   * sequence order (Kafka's `insertInSequenceOrder`).
   */
  reenqueue(batch: ProducerBatch): void {
    const key = tpKey(batch.topic, batch.partition);
    let queue = this.#queues.get(key);
    if (queue === undefined) {
      queue = [];
      this.#queues.set(key, queue);
    }
    if (!batch.hasSequence) {
      queue.unshift(batch);
      return;
    }
    let at = 0;
    while (at < queue.length) {
      const queued = queue[at] as ProducerBatch;
      if (!queued.hasSequence || queued.baseSequence > batch.baseSequence) break;
      at++;
    }
    queue.splice(at, 0, batch);
  }

  /**
   * Takes out the queued batches that never got a sequence ("unstamped":
   * Kafka's `abortUndrainedBatches` for an aborting transaction, since
   * batches in retry must still be resolved), or every queued batch
   * ("all": Kafka's `abortIncompleteBatches` after a fatal error).
   */
  takeBatches(which: "unstamped" | "all"): ProducerBatch[] {
    const taken: ProducerBatch[] = [];
    for (const queue of this.#queues.values()) {
      for (let i = queue.length - 1; i >= 0; i--) {
        const batch = queue[i] as ProducerBatch;
        if (which === "all" || !batch.hasSequence) {
          queue.splice(i, 1);
          taken.unshift(batch);
        }
      }
    }
    return taken;
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
