import type { Micros } from "@kcsim/protocol";
import { BuiltInPartitioner, type PartitionLoadStats, partitionLoadStats, type TopicPartitionsView } from "./built-in-partitioner.js";
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
  /** How many batches it held after its last change (its size before the change being made). */
  lastSize: number;
  /** Its size at the `ready` pass numbered `sizeEpoch`, kept when it first changed after that pass. */
  sizeAtReady: number;
  sizeEpoch: number;
}

/** What `expiredBatches` returns on nearly every pass of the sender. */
const NONE_EXPIRED: readonly ProducerBatch[] = Object.freeze([]);

/** Kafka's `RecordMetadata.UNKNOWN_PARTITION`: a record whose partition the built-in partitioner picks. */
export const UNKNOWN_PARTITION = -1;

/** How keyless records are placed (Kafka's `RecordAccumulator.PartitionerConfig` and the producer's random source). */
export interface PartitionerSettings {
  /** partitioner.adaptive.partitioning.enable: weigh the next sticky partition by queue sizes. */
  readonly adaptive: boolean;
  /** partitioner.availability.timeout.ms: leave out partitions whose leader has had data ready and undrained this long (0: never). */
  readonly availabilityTimeout: Micros;
  /** A uniform draw in [0, 1) from the producer's random stream. */
  readonly random: () => number;
  /** The producer's metadata. */
  readonly cluster: TopicPartitionsView;
}

/** The last time a node had batches ready, and the last time it could take them (Kafka's `NodeLatencyStats`). */
interface NodeLatencyStats {
  readyAt: Micros;
  drainedAt: Micros;
}

/**
 * One topic's queues (by partition) and its built-in partitioner (Kafka's
 * `TopicInfo`), with what the last `ready` pass saw of it: the load stats
 * of adaptive partitioning are those of that pass.
 */
interface TopicState {
  readonly name: string;
  readonly queues: PartitionQueue[];
  /** How many partitions have a queue (Kafka's batches map: an entry stays once made). */
  entries: number;
  partitioner: BuiltInPartitioner | null;
  /** At the last ready pass: how many partitions had a queue, and the topic's partitions and those with a leader. */
  readyEntries: number;
  readyPartitionCount: number;
  readyAvailable: readonly number[];
  /** The metadata version those two were read at (read again only when it changes). */
  readyVersion: number;
  /** With partitioner.availability.timeout.ms set: the stats computed at the last ready pass. */
  readyStats: PartitionLoadStats | null;
  /** The stats rebuilt for the ready pass numbered `statsEpoch` (one rebuild per pass at most). */
  stats: PartitionLoadStats | null;
  statsEpoch: number;
}

/** Whether a partition's batches are all full (Kafka's `allBatchesFull`: only the last may be open); true with none. */
function allBatchesFull(queue: PartitionQueue | undefined): boolean {
  const last = queue?.batches[queue.batches.length - 1];
  return last === undefined || last.isFull;
}

/**
 * Batches waiting to be sent, one queue per partition (Kafka's
 * `RecordAccumulator`). A batch is ready to send when it is full (or a later
 * one exists), or it has lingered linger.ms, or, after a failure, its retry
 * backoff has passed. Draining takes at most one batch per partition per
 * request, rotating the starting partition, within max.request.size.
 * While a flush is on (a transaction being completed), every batch is
 * ready at once. With idempotence a gate may hold a partition back, and a
 * retried batch goes back in sequence order. A record for
 * UNKNOWN_PARTITION (keyless) goes where its topic's built-in partitioner
 * sticks (KIP-794), weighted by the queue sizes of the last ready pass.
 *
 * Only the partitions with queued batches are looked at (the ready queue):
 * every scan visits them in the order of all partitions, as Kafka's scans
 * over every queue do, so the answers are the same.
 */
export class RecordAccumulator {
  readonly #batchSize: number;
  readonly #linger: Micros;
  readonly #partitioning: PartitionerSettings;
  /** Every partition's queue, in creation order; by topic, then partition, for lookups. */
  readonly #queues: PartitionQueue[] = [];
  readonly #byTopic = new Map<string, TopicState>();
  /** The same topics in a list, for the ready pass's walk. */
  readonly #topics: TopicState[] = [];
  /** The queues with at least one batch, by index. */
  readonly #nonEmpty = new IndexOrderedList<PartitionQueue>();
  readonly #nodeStats = new Map<number, NodeLatencyStats>();
  #drainIndex = 0;
  /** Counts the ready passes: the queue sizes a pass saw are kept by the queues that change after it. */
  #readyEpoch = 0;

  constructor(batchSize: number, linger: Micros, partitioning: PartitionerSettings) {
    this.#batchSize = batchSize;
    this.#linger = linger;
    this.#partitioning = partitioning;
  }

  get batchSize(): number {
    return this.#batchSize;
  }

  #queue(topic: string, partition: number): PartitionQueue | undefined {
    return this.#byTopic.get(topic)?.queues[partition];
  }

  #topicOrCreate(topic: string): TopicState {
    let state = this.#byTopic.get(topic);
    if (state === undefined) {
      state = {
        name: topic,
        queues: [],
        entries: 0,
        partitioner: null,
        readyEntries: 0,
        readyPartitionCount: 0,
        readyAvailable: [],
        readyVersion: -1,
        readyStats: null,
        stats: null,
        statsEpoch: -1,
      };
      this.#byTopic.set(topic, state);
      this.#topics.push(state);
    }
    return state;
  }

  #queueOrCreate(topic: string, partition: number): PartitionQueue {
    const state = this.#topicOrCreate(topic);
    let queue = state.queues[partition];
    if (queue === undefined) {
      queue = { index: this.#queues.length, topic, partition, batches: [], muted: false, lastSize: 0, sizeAtReady: 0, sizeEpoch: -1 };
      state.queues[partition] = queue;
      state.entries++;
      this.#queues.push(queue);
    }
    return queue;
  }

  /** Keeps the ready queue in step after `queue`'s batches changed, and its size as the last ready pass saw it. */
  #changed(queue: PartitionQueue): void {
    if (queue.sizeEpoch !== this.#readyEpoch) {
      queue.sizeAtReady = queue.lastSize;
      queue.sizeEpoch = this.#readyEpoch;
    }
    queue.lastSize = queue.batches.length;
    if (queue.batches.length > 0) this.#nonEmpty.add(queue);
    else this.#nonEmpty.delete(queue);
  }

  /**
   * Appends a record to its partition's last batch, or to a new batch when
   * it does not fit (Kafka's `RecordAccumulator.append`). A record for
   * UNKNOWN_PARTITION (keyless, or partitioner.ignore.keys) goes to the
   * topic's sticky partition; the bytes appended count towards the switch,
   * which waits while that partition's last batch is still open. Returns
   * the batch and the partition the record went to.
   */
  append(
    topic: string,
    partition: number,
    record: ProducerRecord,
    handle: SendHandle | null = null,
  ): { readonly outcome: "appended" | "new-batch"; readonly batch: ProducerBatch; readonly partition: number } {
    const cluster = this.#partitioning.cluster;
    const partitioner = partition === UNKNOWN_PARTITION ? this.#partitionerOf(topic) : null;
    for (;;) {
      const info = partitioner?.peek(cluster) ?? null;
      const effective = info?.partition ?? partition;
      const existing = this.#queue(topic, effective);
      // A switch put off while the partition's last batch was open happens once it is full (Kafka's `partitionChanged`).
      if (partitioner !== null && info !== null && this.#switchedAfterFill(partitioner, info, existing)) continue;
      const last = existing?.batches[existing.batches.length - 1];
      if (last !== undefined) {
        const before = last.sizeInBytes;
        // A batch the record does not fit closes to appends (Kafka's `closeForRecordAppends`).
        if (last.tryAppend(record, handle)) {
          if (partitioner !== null && info !== null)
            partitioner.update(info, last.sizeInBytes - before, cluster, allBatchesFull(existing as PartitionQueue));
          return { outcome: "appended", batch: last, partition: effective };
        }
        if (partitioner !== null && info !== null && this.#switchedAfterFill(partitioner, info, existing)) continue;
      }
      const queue = existing ?? this.#queueOrCreate(topic, effective);
      const batch = new ProducerBatch(topic, effective, this.#batchSize, record, handle);
      queue.batches.push(batch);
      this.#changed(queue);
      if (partitioner !== null && info !== null) partitioner.update(info, batch.sizeInBytes, cluster, allBatchesFull(queue));
      return { outcome: "new-batch", batch, partition: effective };
    }
  }

  /** The topic's sticky partition for keyless records (chosen now if there is none yet). */
  stickyPartition(topic: string): number {
    return this.#partitionerOf(topic).peek(this.#partitioning.cluster).partition;
  }

  /** Completes a put-off switch if `queue`'s batches are all full now; whether the sticky partition moved. */
  #switchedAfterFill(
    partitioner: BuiltInPartitioner,
    info: ReturnType<BuiltInPartitioner["peek"]>,
    queue: PartitionQueue | undefined,
  ): boolean {
    if (!allBatchesFull(queue)) return false;
    partitioner.update(info, 0, this.#partitioning.cluster, true);
    return partitioner.isChanged(info);
  }

  #partitionerOf(topic: string): BuiltInPartitioner {
    const state = this.#topicOrCreate(topic);
    if (state.partitioner === null) {
      // batch.size 0 means batches of one record; the partitioner still moves on after a byte (Kafka's max(1, batch.size)).
      state.partitioner = new BuiltInPartitioner(topic, Math.max(1, this.#batchSize), this.#partitioning.random, () =>
        this.#loadStatsOf(state),
      );
    }
    return state.partitioner;
  }

  /**
   * The topic's load stats as the last ready pass computed them (Kafka's
   * `partitionReady` builds them on every pass, for every topic). Without
   * an availability timeout they depend only on the queue sizes and leaders
   * that pass saw, so they are rebuilt from those when a keyless record
   * needs them, instead of on every pass of the sender.
   */
  #loadStatsOf(state: TopicState): PartitionLoadStats | null {
    if (!this.#partitioning.adaptive) return null;
    if (this.#partitioning.availabilityTimeout > 0) return state.readyStats;
    if (state.readyEntries < state.readyPartitionCount) return null;
    if (state.statsEpoch !== this.#readyEpoch) {
      const ids = state.readyAvailable;
      // Kafka's array is as long as the batches map; the partitions with a leader fill its start, in partition order.
      const sizes: number[] = new Array(state.readyEntries).fill(0);
      for (let i = 0; i < ids.length; i++) {
        const queue = state.queues[ids[i] as number] as PartitionQueue;
        sizes[i] = queue.sizeEpoch === this.#readyEpoch ? queue.sizeAtReady : queue.batches.length;
      }
      state.stats = partitionLoadStats(sizes, ids, ids.length);
      state.statsEpoch = this.#readyEpoch;
    }
    return state.stats;
  }

  #backingOff(batch: ProducerBatch, now: Micros): boolean {
    return batch.attempts > 0 && now - batch.lastAttemptAt < batch.retryBackoff;
  }

  /** Whether any batch is queued. */
  get hasUndrained(): boolean {
    return this.#nonEmpty.size > 0;
  }

  /**
   * Which nodes have batches ready to send (Kafka's `ready`). A pass that
   * Kafka's sender would not make (`loadPass` false: it holds data back
   * for a transactional request) leaves adaptive partitioning's stats as
   * the last real pass saw them.
   */
  ready(leaderOf: LeaderOf, now: Micros, gate: DrainGate = OPEN_GATE, flushing = false, loadPass = true): ReadyCheck {
    if (loadPass && this.#partitioning.adaptive) this.#takeLoadSnapshot(leaderOf);
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

  /**
   * What adaptive partitioning needs of this ready pass (Kafka's
   * `partitionReady` computes the load stats of each topic here): which
   * partitions have a leader, and whether every partition has a queue yet
   * (before that Kafka switches uniformly). The queue sizes are kept as
   * they change (`#changed`); with an availability timeout the stats are
   * computed now, as they also depend on the leaders' latency.
   */
  #takeLoadSnapshot(leaderOf: LeaderOf): void {
    this.#readyEpoch++;
    const cluster = this.#partitioning.cluster;
    const version = cluster.version;
    // On every pass of the sender: a few field writes per topic unless the metadata changed since the last pass.
    for (let i = 0; i < this.#topics.length; i++) {
      const state = this.#topics[i] as TopicState;
      state.readyEntries = state.entries;
      if (state.readyVersion !== version) {
        state.readyVersion = version;
        state.readyPartitionCount = cluster.partitionCount(state.name);
        state.readyAvailable = cluster.availablePartitions(state.name);
      }
      if (this.#partitioning.availabilityTimeout > 0) state.readyStats = this.#statsWithLatency(state, leaderOf);
    }
  }

  /**
   * Kafka's `partitionReady` walk, for partitioner.availability.timeout.ms:
   * a partition whose queue has batches and whose leader has had data ready
   * but not drained for longer than the timeout is left out (its slot is
   * taken by the next partition; an empty queue's size is not written, so
   * it keeps what was in the slot, as in Kafka).
   */
  #statsWithLatency(state: TopicState, leaderOf: LeaderOf): PartitionLoadStats | null {
    if (state.readyEntries < state.readyPartitionCount) return null;
    const sizes: number[] = new Array(state.entries).fill(0);
    const ids: number[] = new Array(state.entries).fill(0);
    let index = -1;
    for (let partition = 0; partition < state.queues.length; partition++) {
      const queue = state.queues[partition];
      if (queue === undefined) continue;
      const leader = leaderOf(state.name, partition);
      if (leader === undefined) continue;
      index++;
      ids[index] = partition;
      if (queue.batches.length === 0) continue;
      sizes[index] = queue.batches.length;
      const latency = this.#nodeStats.get(leader);
      if (latency !== undefined && latency.readyAt - latency.drainedAt > this.#partitioning.availabilityTimeout) index--;
    }
    return partitionLoadStats(sizes, ids, index + 1);
  }

  /**
   * The sender found `node` with data ready (Kafka's
   * `updateNodeLatencyStats`): able to take it (`canDrain`), or not (too
   * many requests in flight, or a connection not ready). Only kept with
   * an availability timeout, the one thing that reads it.
   */
  updateNodeLatencyStats(node: number, now: Micros, canDrain: boolean): void {
    if (this.#partitioning.availabilityTimeout <= 0) return;
    let stats = this.#nodeStats.get(node);
    if (stats === undefined) {
      stats = { readyAt: now, drainedAt: now };
      this.#nodeStats.set(node, stats);
    }
    if (canDrain) stats.drainedAt = now;
    stats.readyAt = now;
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
  expiredBatches(deliveryTimeout: Micros, now: Micros): readonly ProducerBatch[] {
    // Asked on every pass of the sender: no array and no ordered scan unless some queue's oldest batch has expired.
    const queues = this.#nonEmpty.items();
    let any = false;
    for (let i = 0; i < queues.length && !any; i++)
      any = now - ((queues[i] as PartitionQueue).batches[0] as ProducerBatch).createdAt >= deliveryTimeout;
    if (!any) return NONE_EXPIRED;
    const expired: ProducerBatch[] = [];
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
    const queues = this.#nonEmpty.items();
    let oldest: Micros | undefined;
    for (let i = 0; i < queues.length; i++) {
      const createdAt = ((queues[i] as PartitionQueue).batches[0] as ProducerBatch).createdAt;
      if (oldest === undefined || createdAt < oldest) oldest = createdAt;
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
