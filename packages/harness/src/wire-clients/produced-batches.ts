import { createHash } from "node:crypto";
import type { RecordBatch } from "@kcsim/protocol";
import { withAssignedOffset } from "@kcsim/wire";

/** How many batches are kept at most (the oldest go first); a batch no longer kept is served re-encoded. */
const MAX_BATCHES = 200_000;

/**
 * The bytes of the record batches real clients produced, so a real consumer
 * fetching them gets them as they were written (headers, compression,
 * timestamp type), not re-encoded from kcsim's symbolic records. Shared by
 * kcsim serve's client actors (in the host's main thread; a replay has
 * none and serves re-encoded batches, which replay does not compare).
 * A batch is found by its partition and offset, and only served if the log
 * still holds the same batch there (same producer, sequence, timestamps and
 * records): after a failover truncated it, another batch may sit at that
 * offset.
 */
export class ProducedBatches {
  readonly #batches = new Map<string, { readonly signature: string; readonly bytes: Uint8Array }>();

  /** A batch the leader acknowledged at `baseOffset`; `batch` is what kcsim's log holds for it. */
  put(topic: string, partition: number, baseOffset: number, batch: RecordBatch, bytes: Uint8Array): void {
    const key = `${topic}\0${partition}\0${baseOffset}`;
    this.#batches.delete(key);
    this.#batches.set(key, { signature: signatureOf(batch), bytes });
    if (this.#batches.size > MAX_BATCHES) this.#batches.delete(this.#batches.keys().next().value as string);
  }

  /** The produced bytes of a fetched batch, moved to its log offset and leader epoch; undefined if kcsim never had them. */
  bytesOf(topic: string, partition: number, batch: RecordBatch): Uint8Array | undefined {
    const stored = this.#batches.get(`${topic}\0${partition}\0${batch.baseOffset}`);
    if (stored === undefined || stored.signature !== signatureOf(batch)) return undefined;
    return withAssignedOffset(stored.bytes, BigInt(batch.baseOffset), batch.partitionLeaderEpoch);
  }
}

function signatureOf(batch: RecordBatch): string {
  const records = batch.records.map((r) => [r.offsetDelta, r.timestampDelta, r.key, r.value]);
  const identity = [batch.producerId, batch.producerEpoch, batch.baseSequence, batch.baseTimestamp, batch.lastOffsetDelta, records];
  return createHash("sha1").update(JSON.stringify(identity)).digest("base64");
}
