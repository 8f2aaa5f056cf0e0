/**
 * Record batches v2 (magic 2), Kafka's DefaultRecordBatch: a 61-byte header
 * followed by records whose fields are varints, the part from the
 * attributes on covered by a CRC-32C.
 *
 *   baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8
 *   | crc uint32 | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64
 *   | maxTimestamp int64 | producerId int64 | producerEpoch int16 | baseSequence int32
 *   | recordCount int32 | records...
 *
 * attributes: bits 0-2 compression, bit 3 timestamp type (log-append time),
 * bit 4 transactional, bit 5 control, bit 6 delete horizon set.
 */
export const RECORD_BATCH_OVERHEAD = 61;
/** baseOffset and batchLength: what precedes the part batchLength counts. */
export const LOG_OVERHEAD = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const CURRENT_MAGIC = 2;

export type Compression = "none" | "gzip" | "snappy" | "lz4" | "zstd";
export const COMPRESSION_CODES: Readonly<Record<Compression, number>> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
export const COMPRESSION_BY_CODE: readonly Compression[] = ["none", "gzip", "snappy", "lz4", "zstd"];

export type TimestampType = "create-time" | "log-append-time";

export interface WireRecordHeader {
  readonly key: string;
  readonly value: Uint8Array | null;
}

export interface WireRecord {
  /** Unused by Kafka so far; kept as read. */
  readonly attributes: number;
  readonly timestampDelta: bigint;
  readonly offsetDelta: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: readonly WireRecordHeader[];
}

export interface WireRecordBatch {
  readonly baseOffset: bigint;
  readonly partitionLeaderEpoch: number;
  readonly compression: Compression;
  readonly timestampType: TimestampType;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly hasDeleteHorizonMs: boolean;
  readonly lastOffsetDelta: number;
  readonly baseTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly records: readonly WireRecord[];
}

export const NO_PRODUCER_ID = -1n;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;

export function attributesOf(batch: WireRecordBatch): number {
  return (
    COMPRESSION_CODES[batch.compression] |
    (batch.timestampType === "log-append-time" ? 0x08 : 0) |
    (batch.isTransactional ? 0x10 : 0) |
    (batch.isControl ? 0x20 : 0) |
    (batch.hasDeleteHorizonMs ? 0x40 : 0)
  );
}
