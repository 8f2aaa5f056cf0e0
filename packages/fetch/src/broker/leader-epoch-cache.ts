import { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from "@kcsim/protocol";

/** A leader epoch and the first offset written in it. */
export interface EpochEntry {
  readonly epoch: number;
  readonly startOffset: number;
}

/** An epoch and its end offset (the start of the next epoch, or the log end for the latest). */
export interface EpochEndOffset {
  readonly epoch: number;
  readonly endOffset: number;
}

/**
 * The leader epoch cache of a partition log (Kafka's `LeaderEpochFileCache`):
 * the (epoch, start offset) pairs of the log, both strictly increasing. It
 * answers OffsetForLeaderEpoch and drives follower truncation (KIP-101).
 */
export class LeaderEpochCache {
  #entries: EpochEntry[] = [];

  entries(): readonly EpochEntry[] {
    return this.#entries;
  }

  latestEpoch(): number | undefined {
    return this.#entries[this.#entries.length - 1]?.epoch;
  }

  /**
   * Records that `epoch` starts at `startOffset`. Entries that would break
   * monotonicity (an epoch at or above the new one, or a start offset at or
   * above the new one) are removed first, as Kafka does.
   */
  assign(epoch: number, startOffset: number): boolean {
    if (epoch < 0) return false;
    const latest = this.#entries[this.#entries.length - 1];
    if (latest !== undefined && latest.epoch === epoch && latest.startOffset <= startOffset) return false;
    while (this.#entries.length > 0) {
      const last = this.#entries[this.#entries.length - 1] as EpochEntry;
      if (last.epoch < epoch && last.startOffset < startOffset) break;
      this.#entries.pop();
    }
    this.#entries.push({ epoch, startOffset });
    return true;
  }

  /**
   * The largest epoch at most `requestedEpoch` and its end offset (Kafka's
   * `endOffsetFor`): the latest epoch ends at the log end offset; a smaller
   * epoch ends where the next larger epoch starts; an epoch below every
   * entry answers (requestedEpoch, first start offset); an epoch above every
   * entry, or an unknown one, is undefined.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): EpochEndOffset {
    const undefinedAnswer = { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    if (requestedEpoch === UNDEFINED_EPOCH) return undefinedAnswer;
    const latest = this.#entries[this.#entries.length - 1];
    if (latest !== undefined && latest.epoch === requestedEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset };
    const higherIndex = this.#entries.findIndex((e) => e.epoch > requestedEpoch);
    if (higherIndex < 0) return undefinedAnswer;
    const higher = this.#entries[higherIndex] as EpochEntry;
    const floor = higherIndex > 0 ? (this.#entries[higherIndex - 1] as EpochEntry) : undefined;
    return { epoch: floor?.epoch ?? requestedEpoch, endOffset: higher.startOffset };
  }

  /** The epoch of the entry covering `offset`, if any. */
  epochForOffset(offset: number): number | undefined {
    let epoch: number | undefined;
    for (const entry of this.#entries) {
      if (entry.startOffset > offset) break;
      epoch = entry.epoch;
    }
    return epoch;
  }

  /** Removes entries starting at or after `endOffset` (the log was truncated there). */
  truncateFromEnd(endOffset: number): void {
    while (this.#entries.length > 0 && (this.#entries[this.#entries.length - 1] as EpochEntry).startOffset >= endOffset)
      this.#entries.pop();
  }

  /**
   * Drops entries wholly below `startOffset` (the log start moved): the last
   * entry at or below it is kept, moved to start at `startOffset`.
   */
  truncateFromStart(startOffset: number): void {
    let keepFrom = 0;
    for (let i = 0; i < this.#entries.length; i++) if ((this.#entries[i] as EpochEntry).startOffset <= startOffset) keepFrom = i;
    const first = this.#entries[keepFrom];
    if (first === undefined || first.startOffset > startOffset) return;
    this.#entries = [{ epoch: first.epoch, startOffset }, ...this.#entries.slice(keepFrom + 1)];
  }

  clear(): void {
    this.#entries = [];
  }
}
