import type { RecordBatch } from "@kcsim/protocol";
import type { WireRecordBatch } from "../records/record-batch.js";
import { toNumber } from "./mapping-context.js";
import { recordBytes, recordText } from "./record-text.js";

/** Bytes of one record as Kafka counts them: its varint length prefix plus its body. */
function recordSize(bodyLength: number): number {
  let prefix = 1;
  for (let v = (bodyLength << 1) >>> 0; v >= 0x80; v >>>= 7) prefix++;
  return prefix + bodyLength;
}

function varintSize(value: number): number {
  let size = 1;
  for (let v = ((value << 1) ^ (value >> 31)) >>> 0; v >= 0x80; v >>>= 7) size++;
  return size;
}

/**
 * A real batch as kcsim's symbolic one: header fields as they are, keys and
 * values as text (record-text.ts), sizes as the real encoded sizes (the
 * batch's compressed size). Not carried: record headers, per-record
 * attributes, compression, timestamp type, max timestamp. The server keeps
 * the batch bytes beside it to serve them back unchanged.
 */
export function batchToKcsim(batch: WireRecordBatch, sizeInBytes: number): RecordBatch {
  return {
    baseOffset: toNumber(batch.baseOffset, "base offset"),
    lastOffsetDelta: batch.lastOffsetDelta,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    sizeInBytes,
    baseTimestamp: toNumber(batch.baseTimestamp, "base timestamp"),
    producerId: toNumber(batch.producerId, "producer id"),
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    isTransactional: batch.isTransactional,
    isControl: batch.isControl,
    records: batch.records.map((r) => {
      const timestampDelta = toNumber(r.timestampDelta, "timestamp delta");
      let body = 1 + varintSize(timestampDelta) + varintSize(r.offsetDelta);
      body += r.key === null ? 1 : varintSize(r.key.length) + r.key.length;
      body += r.value === null ? 1 : varintSize(r.value.length) + r.value.length;
      body += varintSize(r.headers.length);
      for (const h of r.headers) {
        const keyLength = Buffer.byteLength(h.key);
        body += varintSize(keyLength) + keyLength + (h.value === null ? 1 : varintSize(h.value.length) + h.value.length);
      }
      return {
        offsetDelta: r.offsetDelta,
        timestampDelta,
        key: recordText(r.key),
        value: recordText(r.value),
        sizeInBytes: recordSize(body),
      };
    }),
  };
}

/**
 * A kcsim batch as a real one, for batches that were never real bytes (a
 * simulated producer's): uncompressed, create time, no headers, max
 * timestamp from the largest delta.
 */
export function batchToWire(batch: RecordBatch): WireRecordBatch {
  const maxDelta = batch.records.reduce((max, r) => Math.max(max, r.timestampDelta), 0);
  return {
    baseOffset: BigInt(batch.baseOffset),
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    compression: "none",
    timestampType: "create-time",
    isTransactional: batch.isTransactional,
    isControl: batch.isControl,
    hasDeleteHorizonMs: false,
    lastOffsetDelta: batch.lastOffsetDelta,
    baseTimestamp: BigInt(batch.baseTimestamp),
    maxTimestamp: BigInt(batch.baseTimestamp + maxDelta),
    producerId: BigInt(batch.producerId),
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    records: batch.records.map((r) => ({
      attributes: 0,
      timestampDelta: BigInt(r.timestampDelta),
      offsetDelta: r.offsetDelta,
      key: recordBytes(r.key),
      value: recordBytes(r.value),
      headers: [],
    })),
  };
}
