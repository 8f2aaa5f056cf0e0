import type { AbortedTransaction, RecordBatch, SimRecord } from "@kcsim/protocol";
import { LeaderEpochCache } from "./leader-epoch-cache.js";
import { ProducerStateManager } from "./producer-state-manager.js";

/** A batch in the log, with its byte position (running total since the log began) and its segment. */
interface LogEntry {
  readonly batch: RecordBatch;
  readonly position: number;
  readonly segment: Segment;
}

/** A log segment: where it starts, when it was rolled, and what it holds. */
interface Segment {
  readonly baseOffset: number;
  readonly createdAtMs: number;
  bytes: number;
  maxTimestampMs: number;
}

/** The settings of a log that decide segment rolls. */
export interface LogRollSettings {
  readonly segmentBytes: number;
  readonly rollMs: number;
}

/** What a log writes to durable storage, so a restarted broker rebuilds the same log. */
export type LogChange =
  | { readonly op: "append"; readonly batch: RecordBatch; readonly roll: boolean; readonly atMs: number }
  | { readonly op: "truncate"; readonly offset: number }
  | { readonly op: "truncate-fully"; readonly offset: number }
  | { readonly op: "log-start"; readonly offset: number }
  | { readonly op: "epoch"; readonly epoch: number; readonly offset: number }
  | { readonly op: "hw"; readonly offset: number };

/** A read: the batches and their total size in bytes, or the fetch offset lies outside [log start, log end]. */
export type LogReadResult =
  | { readonly outOfRange: false; readonly batches: RecordBatch[]; readonly bytes: number }
  | { readonly outOfRange: true };

/** The answer of every read outside [log start, log end]: it carries nothing, so one object serves all. */
const OUT_OF_RANGE: LogReadResult = { outOfRange: true };

export function lastOffsetOf(batch: RecordBatch): number {
  return batch.baseOffset + batch.lastOffsetDelta;
}

/** The largest record timestamp of a batch (CreateTime), ms. */
function maxTimestampOf(batch: RecordBatch): number {
  let max = batch.baseTimestamp;
  // Indexed: a sealed batch's records are frozen, and for-of over a frozen array makes an iterator each time.
  const records = batch.records;
  for (let i = 0; i < records.length; i++) max = Math.max(max, batch.baseTimestamp + (records[i] as SimRecord).timestampDelta);
  return max;
}

/**
 * One partition's log on one broker (Kafka's `UnifiedLog` with its
 * segments): record batches with offsets, the log start and end offsets,
 * the high watermark and the leader epoch cache. Every change is reported
 * to `persist` as a LogChange; `replay` applies a stored change to a fresh
 * log, so the log survives a crash of its broker. The high watermark is
 * persisted only by `checkpointHighWatermark` (Kafka's periodic
 * replication-offset-checkpoint), so after a restart it may be behind.
 *
 * The producer state (idempotence, transactions, the last stable offset and
 * the aborted-transaction index) is derived from the batches as they are
 * appended, so it survives a restart through the same replay and is the
 * same on followers as on the leader. A truncation rebuilds it from the
 * state as of the log start (kept as the log start moves, as Kafka keeps
 * producer state past deleted segments) plus the batches left.
 */
export class PartitionLog {
  readonly epochCache = new LeaderEpochCache();
  readonly #roll: LogRollSettings;
  readonly #persist: (change: LogChange) => void;
  #entries: LogEntry[] = [];
  #segments: Segment[] = [];
  #logStartOffset = 0;
  #logEndOffset = 0;
  #endPosition = 0;
  #highWatermark = 0;
  #checkpointedHighWatermark = 0;
  #producerState = new ProducerStateManager();
  /** The producer state of the batches below the log start (what a rebuild starts from). */
  #producerStateAtLogStart = new ProducerStateManager();
  #version = 0;

  constructor(roll: LogRollSettings, persist: (change: LogChange) => void) {
    this.#roll = roll;
    this.#persist = persist;
  }

  /**
   * Moves on with every change a read can see (batches, segments, offsets,
   * watermarks, the last stable offset): equal versions mean a read would
   * find the log as it was.
   */
  get version(): number {
    return this.#version;
  }

  get logStartOffset(): number {
    return this.#logStartOffset;
  }

  get logEndOffset(): number {
    return this.#logEndOffset;
  }

  get highWatermark(): number {
    return this.#highWatermark;
  }

  /** The producer state after the last batch of the log. */
  get producerState(): ProducerStateManager {
    return this.#producerState;
  }

  /**
   * The last stable offset (Kafka's `lastStableOffset`): the first offset of
   * the oldest transaction that is open (or completed with its marker not
   * yet below the high watermark) if that is below the high watermark, else
   * the high watermark.
   */
  get lastStableOffset(): number {
    const firstUnstable = this.#producerState.firstUnstableOffset();
    return firstUnstable !== undefined && firstUnstable < this.#highWatermark ? firstUnstable : this.#highWatermark;
  }

  /** Aborted transactions with data in [fetchOffset, upperBoundOffset) (for read_committed fetches). */
  collectAbortedTransactions(fetchOffset: number, upperBoundOffset: number): AbortedTransaction[] {
    return this.#producerState.collectAbortedTransactions(fetchOffset, upperBoundOffset);
  }

  /** Bytes of all batches in the log. */
  get sizeInBytes(): number {
    let bytes = 0;
    for (const segment of this.#segments) bytes += segment.bytes;
    return bytes;
  }

  get segmentCount(): number {
    return this.#segments.length;
  }

  /** The batches of the log, oldest first. */
  batches(): RecordBatch[] {
    return this.#entries.map((entry) => entry.batch);
  }

  latestEpoch(): number | undefined {
    return this.epochCache.latestEpoch();
  }

  /** Appends a producer's batch: offsets from the log end, stamped with the leader epoch. */
  appendAsLeader(batch: RecordBatch, leaderEpoch: number, nowMs: number): RecordBatch {
    const stamped: RecordBatch = { ...batch, baseOffset: this.#logEndOffset, partitionLeaderEpoch: leaderEpoch };
    this.#append(stamped, nowMs, true);
    return stamped;
  }

  /**
   * Appends a batch fetched from the leader; it must start at the log end
   * (false if it does not, and nothing is appended).
   */
  appendAsFollower(batch: RecordBatch, nowMs: number): boolean {
    if (batch.baseOffset !== this.#logEndOffset) return false;
    this.#append(batch, nowMs, true);
    return true;
  }

  #append(batch: RecordBatch, nowMs: number, persist: boolean, rollAt?: boolean): void {
    this.#version++;
    const active = this.#segments[this.#segments.length - 1];
    const roll =
      rollAt ??
      (active === undefined ||
        (active.bytes > 0 &&
          (active.bytes + batch.sizeInBytes > this.#roll.segmentBytes || nowMs - active.createdAtMs >= this.#roll.rollMs)));
    if (roll) this.#segments.push({ baseOffset: batch.baseOffset, createdAtMs: nowMs, bytes: 0, maxTimestampMs: -1 });
    const segment = this.#segments[this.#segments.length - 1] as Segment;
    segment.bytes += batch.sizeInBytes;
    segment.maxTimestampMs = Math.max(segment.maxTimestampMs, maxTimestampOf(batch));
    this.#entries.push({ batch, position: this.#endPosition, segment });
    this.#endPosition += batch.sizeInBytes;
    this.#logEndOffset = lastOffsetOf(batch) + 1;
    this.#producerState.apply(batch);
    const latest = this.epochCache.latestEpoch();
    if (batch.partitionLeaderEpoch >= 0 && (latest === undefined || batch.partitionLeaderEpoch > latest)) {
      this.epochCache.assign(batch.partitionLeaderEpoch, batch.baseOffset);
    }
    if (persist) this.#persist({ op: "append", batch, roll, atMs: nowMs });
  }

  /** The index of the batch holding `offset` (the first batch ending at or after it), or the entry count. */
  #indexOf(offset: number): number {
    let lo = 0;
    let hi = this.#entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lastOffsetOf((this.#entries[mid] as LogEntry).batch) < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The byte position of `offset`: the start of the batch holding it, or the end position. */
  #positionOf(offset: number): number {
    return this.#entries[this.#indexOf(offset)]?.position ?? this.#endPosition;
  }

  /**
   * Reads from the batch holding `startOffset` (Kafka's `LocalLog.read`):
   * out of range below the log start or above the log end; empty at or above
   * `maxOffset` (the high watermark for consumers, the log end for
   * followers). Whole batches below `maxOffset`, from one segment, while
   * their total stays within `maxBytes`; with `minOneMessage` the first batch
   * is returned even when it alone exceeds `maxBytes`.
   */
  read(startOffset: number, maxBytes: number, maxOffset: number, minOneMessage: boolean): LogReadResult {
    if (startOffset < this.#logStartOffset || startOffset > this.#logEndOffset) return OUT_OF_RANGE;
    const batches: RecordBatch[] = [];
    if (startOffset >= maxOffset) return { outOfRange: false, batches, bytes: 0 };
    const first = this.#indexOf(startOffset);
    const firstEntry = this.#entries[first];
    if (firstEntry === undefined) return { outOfRange: false, batches, bytes: 0 };
    const limit = minOneMessage ? Math.max(maxBytes, firstEntry.batch.sizeInBytes) : maxBytes;
    let bytes = 0;
    for (let i = first; i < this.#entries.length; i++) {
      const entry = this.#entries[i] as LogEntry;
      if (entry.segment !== firstEntry.segment || lastOffsetOf(entry.batch) >= maxOffset) break;
      if (bytes + entry.batch.sizeInBytes > limit) break;
      bytes += entry.batch.sizeInBytes;
      batches.push(entry.batch);
    }
    return { outOfRange: false, batches, bytes };
  }

  /**
   * The base offset of the segment holding `offset` (the active segment at
   * or past the log end), or undefined below the log start.
   */
  segmentBaseOf(offset: number): number | undefined {
    if (offset < this.#logStartOffset) return undefined;
    const entry = this.#entries[this.#indexOf(offset)];
    return (entry?.segment ?? this.#segments[this.#segments.length - 1])?.baseOffset;
  }

  /** Bytes of the batches from `fromOffset` up to `toOffset` (Kafka's `positionDiff`, for delayed fetches). */
  bytesBetween(fromOffset: number, toOffset: number): number {
    if (toOffset <= fromOffset) return 0;
    return this.#positionOf(toOffset) - this.#positionOf(fromOffset);
  }

  /** Sets the high watermark, clamped to [log start, log end] (followers take the leader's). Returns whether it changed. */
  updateHighWatermark(offset: number): boolean {
    const clamped = Math.min(Math.max(offset, this.#logStartOffset), this.#logEndOffset);
    if (clamped === this.#highWatermark) return false;
    this.#setHighWatermark(clamped);
    return true;
  }

  /** Raises the high watermark (a leader's, never above the log end); returns whether it moved. */
  maybeIncrementHighWatermark(offset: number): boolean {
    if (offset <= this.#highWatermark) return false;
    this.#setHighWatermark(Math.min(offset, this.#logEndOffset));
    return true;
  }

  #setHighWatermark(offset: number): void {
    this.#version++;
    this.#highWatermark = offset;
    this.#producerState.onHighWatermarkUpdated(offset);
  }

  /** Writes the high watermark to durable storage if it moved since the last checkpoint. */
  checkpointHighWatermark(): void {
    if (this.#highWatermark === this.#checkpointedHighWatermark) return;
    this.#checkpointedHighWatermark = this.#highWatermark;
    this.#persist({ op: "hw", offset: this.#highWatermark });
  }

  /** Records (makeLeader) that `epoch` starts at `offset`. */
  assignEpochStartOffset(epoch: number, offset: number): void {
    if (this.epochCache.assign(epoch, offset)) this.#persist({ op: "epoch", epoch, offset });
  }

  /**
   * Cuts the log back so it ends at or before `offset`: the batch holding
   * `offset` and everything after it go. Returns the new log end, or
   * undefined if nothing was cut.
   */
  truncateTo(offset: number): number | undefined {
    if (offset >= this.#logEndOffset) return undefined;
    if (offset < this.#logStartOffset) {
      this.truncateFullyAndStartAt(offset);
      return offset;
    }
    this.#truncate(offset);
    this.#persist({ op: "truncate", offset });
    return this.#logEndOffset;
  }

  #truncate(offset: number): void {
    this.#version++;
    const keep = this.#indexOf(offset);
    const removed = this.#entries.splice(keep);
    const firstRemoved = removed[0];
    if (firstRemoved !== undefined) {
      this.#endPosition = firstRemoved.position;
      this.#logEndOffset = firstRemoved.batch.baseOffset;
    }
    for (const entry of removed) entry.segment.bytes -= entry.batch.sizeInBytes;
    while (this.#segments.length > 1 && (this.#segments[this.#segments.length - 1] as Segment).baseOffset >= this.#logEndOffset) {
      this.#segments.pop();
    }
    this.epochCache.truncateFromEnd(this.#logEndOffset);
    if (this.#highWatermark > this.#logEndOffset) this.#highWatermark = this.#logEndOffset;
    this.#rebuildProducerState();
    // A stored truncation bounds the recovered high watermark too, so a restart never brings back one above it.
    this.#checkpointedHighWatermark = Math.min(this.#checkpointedHighWatermark, this.#logEndOffset);
  }

  /** Kafka's `rebuildProducerState` after a truncation: the state at the log start plus the batches left. */
  #rebuildProducerState(): void {
    this.#producerState = this.#producerStateAtLogStart.clone();
    for (const entry of this.#entries) this.#producerState.apply(entry.batch);
    this.#producerState.onHighWatermarkUpdated(this.#highWatermark);
  }

  /** Drops the whole log; it starts again (empty) at `offset`. */
  truncateFullyAndStartAt(offset: number): void {
    this.#resetTo(offset);
    this.#persist({ op: "truncate-fully", offset });
  }

  #resetTo(offset: number): void {
    this.#version++;
    this.#entries = [];
    this.#segments = [];
    this.#logStartOffset = offset;
    this.#logEndOffset = offset;
    this.#highWatermark = offset;
    this.epochCache.clear();
    this.#producerState = new ProducerStateManager();
    this.#producerStateAtLogStart = new ProducerStateManager();
  }

  /**
   * Moves the log start forward (retention, DeleteRecords, or a follower
   * following its leader), never past the high watermark; batches wholly
   * below it are dropped. Returns whether it moved.
   */
  maybeIncrementLogStartOffset(offset: number): boolean {
    if (offset <= this.#logStartOffset || offset > this.#highWatermark) return false;
    this.#moveLogStart(offset);
    this.#persist({ op: "log-start", offset });
    return true;
  }

  #moveLogStart(offset: number): void {
    this.#version++;
    this.#logStartOffset = offset;
    const firstKept = this.#indexOf(offset);
    const removed = this.#entries.splice(0, firstKept);
    for (const entry of removed) {
      entry.segment.bytes -= entry.batch.sizeInBytes;
      this.#producerStateAtLogStart.apply(entry.batch);
    }
    this.#producerStateAtLogStart.onLogStartOffsetIncremented(offset);
    this.#producerState.onLogStartOffsetIncremented(offset);
    // Segments with nothing left in them go, but the active segment always stays.
    while (this.#segments.length > 1 && (this.#segments[0] as Segment).bytes === 0) this.#segments.shift();
    this.epochCache.truncateFromStart(offset);
  }

  /**
   * Retention (Kafka's `deleteOldSegments`): closed segments wholly below the
   * last stable offset (so below the high watermark, and never holding an
   * unstable transaction's data) go when their newest record is older than `retentionMs`,
   * or while the log is bigger than `retentionBytes` by at least the
   * segment (-1 disables either). Returns whether the log start moved.
   */
  deleteOldSegments(nowMs: number, retentionMs: number, retentionBytes: number): boolean {
    let size = this.sizeInBytes;
    let newStart = this.#logStartOffset;
    const stable = this.lastStableOffset;
    for (let i = 0; i < this.#segments.length - 1; i++) {
      const segment = this.#segments[i] as Segment;
      const next = this.#segments[i + 1] as Segment;
      if (next.baseOffset > stable) break;
      const expired = retentionMs >= 0 && nowMs - segment.maxTimestampMs > retentionMs;
      const oversized = retentionBytes >= 0 && size - segment.bytes >= retentionBytes;
      if (!expired && !oversized) break;
      size -= segment.bytes;
      newStart = next.baseOffset;
    }
    return this.maybeIncrementLogStartOffset(newStart);
  }

  /**
   * The first offset whose record timestamp is at least `timestampMs`, with
   * the timestamp (Kafka's `fetchOffsetByTimestamp` for a plain timestamp), or
   * undefined if none is.
   */
  offsetForTimestamp(timestampMs: number): { offset: number; timestampMs: number; epoch: number } | undefined {
    for (const { batch } of this.#entries) {
      if (maxTimestampOf(batch) < timestampMs) continue;
      for (const record of batch.records) {
        const offset = batch.baseOffset + record.offsetDelta;
        const timestamp = batch.baseTimestamp + record.timestampDelta;
        if (offset >= this.#logStartOffset && timestamp >= timestampMs)
          return { offset, timestampMs: timestamp, epoch: batch.partitionLeaderEpoch };
      }
    }
    return undefined;
  }

  /** Applies a stored change to this log while it is being rebuilt (nothing is persisted again). */
  replay(change: LogChange): void {
    switch (change.op) {
      case "append":
        this.#append(change.batch, change.atMs, false, change.roll);
        break;
      case "truncate":
        if (change.offset < this.#logEndOffset) this.#truncate(change.offset);
        break;
      case "truncate-fully":
        this.#resetTo(change.offset);
        break;
      case "log-start":
        if (change.offset > this.#logStartOffset) this.#moveLogStart(change.offset);
        break;
      case "epoch":
        this.epochCache.assign(change.epoch, change.offset);
        break;
      case "hw":
        this.#checkpointedHighWatermark = change.offset;
        break;
    }
  }

  /** After a replay: the high watermark restarts from its last checkpoint (Kafka's recovery). */
  finishReplay(): void {
    this.#setHighWatermark(Math.min(Math.max(this.#checkpointedHighWatermark, this.#logStartOffset), this.#logEndOffset));
  }
}
