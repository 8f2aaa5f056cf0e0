import type { Micros } from "@kcsim/protocol";
import { IndexOrderedList } from "./index-ordered-list.js";
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

const NOTHING_DRAINED: ReadonlyMap<number, ProducerBatch[]> = new Map();

/** What `ready` found (Kafka's `ReadyCheckResult`). */
export interface ReadyCheck {
  /** Distinct, in the order found (a producer knows a handful of nodes: a list, not a set, is made per check). */
  readonly readyNodes: readonly number[];
  /** When to look again for batches that are not ready yet. */
  readonly nextReadyCheckDelay: Micros;
  readonly unknownLeader: boolean;
}

/**
 * One partition's queue of batches. `index` is the order in which the
 * partition's first batch arrived: the order every scan follows (Kafka
 * iterates its batches map in that order).
 */
interface PartitionQueue {
  readonly index: number;
  readonly topic: string;
  readonly partition: number;
  readonly batches: ProducerBatch[];
  muted: boolean;
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
 *
 * Only the partitions with queued batches are looked at (the ready queue):
 * every scan visits them in the order of all partitions, as Kafka's scans
 * over every queue do, so the answers are the same.
 */
export class RecordAccumulator {
  readonly #batchSize: number;
  readonly #linger: Micros;
  /** Every partition's queue, in creation order; by topic, then partition, for lookups. */
  readonly #queues: PartitionQueue[] = [];
  readonly #byTopic = new Map<string, PartitionQueue[]>();
  /** The queues with at least one batch, by index. */
  readonly #nonEmpty = new IndexOrderedList<PartitionQueue>();
  #drainIndex = 0;

  constructor(batchSize: number, linger: Micros) {
    this.#batchSize = batchSize;
    this.#linger = linger;
  }

  get batchSize(): number {
    return this.#batchSize;
  }

  #queue(topic: string, partition: number): PartitionQueue | undefined {
    return this.#byTopic.get(topic)?.[partition];
  }

  #queueOrCreate(topic: string, partition: number): PartitionQueue {
    let queues = this.#byTopic.get(topic);
    if (queues === undefined) {
      queues = [];
      this.#byTopic.set(topic, queues);
    }
    let queue = queues[partition];
    if (queue === undefined) {
      queue = { index: this.#queues.length, topic, partition, batches: [], muted: false };
      queues[partition] = queue;
      this.#queues.push(queue);
    }
    return queue;
  }

  /** Keeps the ready queue in step after `queue`'s batches changed. */
  #changed(queue: PartitionQueue): void {
    if (queue.batches.length > 0) this.#nonEmpty.add(queue);
    else this.#nonEmpty.delete(queue);
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
    const existing = this.#queue(topic, partition);
    const last = existing?.batches[existing.batches.length - 1];
    if (last?.tryAppend(record, handle)) return { outcome: "appended", batch: last };
    if (abortOnNewBatch) return { outcome: "abort-for-new-batch" };
    const queue = existing ?? this.#queueOrCreate(topic, partition);
    const batch = new ProducerBatch(topic, partition, this.#batchSize, record, handle);
    queue.batches.push(batch);
    this.#changed(queue);
    return { outcome: "new-batch", batch };
  }

  #backingOff(batch: ProducerBatch, now: Micros): boolean {
    return batch.attempts > 0 && now - batch.lastAttemptAt < batch.retryBackoff;
  }

  /** Whether any batch is queued. */
  get hasUndrained(): boolean {
    return this.#nonEmpty.size > 0;
  }

  ready(leaderOf: LeaderOf, now: Micros, gate: DrainGate = OPEN_GATE, flushing = false): ReadyCheck {
    const readyNodes: number[] = [];
    let nextReadyCheckDelay = Number.POSITIVE_INFINITY;
    let unknownLeader = false;
    // Ready changes no queue: it walks the live list.
    for (const queue of this.#nonEmpty.items()) {
      const batch = queue.batches[0] as ProducerBatch;
      const leader = leaderOf(batch.topic, batch.partition);
      if (leader === undefined) {
        unknownLeader = true;
        continue;
      }
      if (readyNodes.includes(leader) || queue.muted) continue;
      // Held back until something else moves (an answer, a partition added to the transaction): no wake-up of its own.
      if (gate.shouldStopDrain(batch)) continue;
      const waited = now - batch.lastAttemptAt;
      const backingOff = this.#backingOff(batch, now);
      const timeToWait = backingOff ? batch.retryBackoff : this.#linger;
      const full = queue.batches.length > 1 || batch.isFull || flushing;
      const expired = waited >= timeToWait;
      if ((full || expired) && !backingOff) readyNodes.push(leader);
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
  ): ReadonlyMap<number, ProducerBatch[]> {
    const count = this.#queues.length;
    if (count === 0) return NOTHING_DRAINED;
    const start = this.#drainIndex % count;
    // Most passes of the sender have no node ready: no map is made for them.
    if (nodes.length === 0) {
      this.#drainIndex = (start + 1) % count;
      return NOTHING_DRAINED;
    }
    const out = new Map<number, ProducerBatch[]>();
    // The queues with batches, from the rotating start: draining only empties queues, so no other has any.
    const rotated = this.#nonEmpty.rotatedFrom(start);
    for (const node of nodes) {
      const ready: ProducerBatch[] = [];
      let size = 0;
      for (const queue of rotated) {
        const batch = queue.batches[0];
        if (batch === undefined || queue.muted || leaderOf(batch.topic, batch.partition) !== node) continue;
        if (this.#backingOff(batch, now)) continue;
        if (gate.shouldStopDrain(batch)) continue;
        if (size + batch.sizeInBytes > maxRequestSize && ready.length > 0) break;
        queue.batches.shift();
        this.#changed(queue);
        batch.close();
        gate.onDrain(batch);
        size += batch.sizeInBytes;
        ready.push(batch);
      }
      if (ready.length > 0) out.set(node, ready);
    }
    this.#drainIndex = (start + 1) % count;
    return out;
  }

  /**
   * Puts a batch back at the front of its queue for another try; a batch
   * with a sequence goes among the retried batches at the front in
   * sequence order (Kafka's `insertInSequenceOrder`).
   */
  reenqueue(batch: ProducerBatch): void {
    const queue = this.#queueOrCreate(batch.topic, batch.partition);
    const batches = queue.batches;
    if (!batch.hasSequence) {
      batches.unshift(batch);
    } else {
      let at = 0;
      while (at < batches.length) {
        const queued = batches[at] as ProducerBatch;
        if (!queued.hasSequence || queued.baseSequence > batch.baseSequence) break;
        at++;
      }
      batches.splice(at, 0, batch);
    }
    this.#changed(queue);
  }

  /**
   * Takes out the queued batches that never got a sequence ("unstamped":
   * Kafka's `abortUndrainedBatches` for an aborting transaction, since
   * batches in retry must still be resolved), or every queued batch
   * ("all": Kafka's `abortIncompleteBatches` after a fatal error).
   */
  takeBatches(which: "unstamped" | "all"): ProducerBatch[] {
    const taken: ProducerBatch[] = [];
    for (const queue of this.#nonEmpty.items().slice()) {
      const batches = queue.batches;
      for (let i = batches.length - 1; i >= 0; i--) {
        const batch = batches[i] as ProducerBatch;
        if (which === "all" || !batch.hasSequence) {
          batches.splice(i, 1);
          taken.unshift(batch);
        }
      }
      this.#changed(queue);
    }
    return taken;
  }

  /** Takes out the queued batches older than the delivery timeout (Kafka's `expiredBatches`). */
  expiredBatches(deliveryTimeout: Micros, now: Micros): ProducerBatch[] {
    const expired: ProducerBatch[] = [];
    // Asked on every pass of the sender: no ordered scan unless some queue's oldest batch has expired.
    let any = false;
    for (const queue of this.#nonEmpty.items()) if (now - (queue.batches[0] as ProducerBatch).createdAt >= deliveryTimeout) any = true;
    if (!any) return expired;
    for (const queue of this.#nonEmpty.items().slice()) {
      const batches = queue.batches;
      if (now - (batches[0] as ProducerBatch).createdAt < deliveryTimeout) continue;
      while (batches.length > 0 && now - (batches[0] as ProducerBatch).createdAt >= deliveryTimeout)
        expired.push(batches.shift() as ProducerBatch);
      this.#changed(queue);
    }
    return expired;
  }

  /** The earliest creation time of a queued batch (for the delivery timeout), or undefined. */
  oldestCreatedAt(): Micros | undefined {
    let oldest: Micros | undefined;
    for (const queue of this.#nonEmpty.items()) {
      const first = queue.batches[0] as ProducerBatch;
      oldest = Math.min(oldest ?? first.createdAt, first.createdAt);
    }
    return oldest;
  }

  mute(topic: string, partition: number): void {
    this.#queueOrCreate(topic, partition).muted = true;
  }

  unmute(topic: string, partition: number): void {
    const queue = this.#queue(topic, partition);
    if (queue !== undefined) queue.muted = false;
  }

  get queuedBatches(): number {
    let n = 0;
    for (const queue of this.#nonEmpty.items()) n += queue.batches.length;
    return n;
  }
}
