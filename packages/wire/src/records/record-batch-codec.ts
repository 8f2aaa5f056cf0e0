import { Reader } from "../io/reader.js";
import { Writer } from "../io/writer.js";
import { asWireError, WireError } from "../wire-error.js";
import { compress, decompress } from "./compression.js";
import { crc32c } from "./crc32c.js";
import {
  ATTRIBUTES_OFFSET,
  attributesOf,
  COMPRESSION_BY_CODE,
  CRC_OFFSET,
  CURRENT_MAGIC,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  RECORD_BATCH_OVERHEAD,
  type WireRecord,
  type WireRecordBatch,
  type WireRecordHeader,
} from "./record-batch.js";

/** The fewest bytes one record takes: length, attributes, timestamp and offset deltas, key and value lengths, header count. */
const MIN_RECORD_SIZE = 7;

export interface DecodedRecordBatch {
  readonly batch: WireRecordBatch;
  /** The batch's own bytes (a view into the input), to keep and serve unchanged. */
  readonly bytes: Uint8Array;
}

export interface ReadRecordBatchesOptions {
  /**
   * Fetch responses may end in a partial batch (the broker cuts at the size
   * limit); clients skip it. Produce requests may not. Default false.
   */
  readonly allowPartialTail?: boolean;
  /** Largest decompressed records section accepted (a bound against decompression bombs). Default 100 MiB. */
  readonly maxUncompressedBytes?: number;
  /** Check each batch's CRC-32C (default true). */
  readonly verifyCrc?: boolean;
}

const DEFAULT_MAX_UNCOMPRESSED = 100 * 1024 * 1024;

/**
 * Reads the record batches in a RECORDS field. Throws WireError only:
 * unsupported-magic for a legacy message set (magic 0/1), corrupt-batch for
 * a CRC mismatch, unsupported-compression for snappy/lz4/zstd, truncated /
 * invalid-length / malformed for broken structure.
 */
export function readRecordBatches(bytes: Uint8Array, options: ReadRecordBatchesOptions = {}): DecodedRecordBatch[] {
  const out: DecodedRecordBatch[] = [];
  let offset = 0;
  try {
    while (offset < bytes.length) {
      const left = bytes.length - offset;
      if (left < LOG_OVERHEAD) {
        if (options.allowPartialTail) break;
        throw new WireError("truncated", `${left} bytes after the last batch at offset ${offset}, a batch header needs ${LOG_OVERHEAD}`, {
          offset,
        });
      }
      const view = new DataView(bytes.buffer, bytes.byteOffset + offset, left);
      const batchLength = view.getInt32(8);
      const size = LOG_OVERHEAD + batchLength;
      if (left > MAGIC_OFFSET) {
        const magic = view.getInt8(MAGIC_OFFSET);
        if (magic !== CURRENT_MAGIC) {
          throw new WireError(
            "unsupported-magic",
            `a message set of magic ${magic} at offset ${offset}: only record batches v2 (magic 2) are decoded`,
            { offset },
          );
        }
      }
      if (batchLength < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
        throw new WireError(
          "invalid-length",
          `batch length ${batchLength} at offset ${offset} is below the ${RECORD_BATCH_OVERHEAD - LOG_OVERHEAD}-byte minimum`,
          { offset },
        );
      }
      if (size > left) {
        if (options.allowPartialTail) break;
        throw new WireError("truncated", `batch at offset ${offset} declares ${size} bytes, ${left} are there`, { offset });
      }
      const batchBytes = bytes.subarray(offset, offset + size);
      out.push({ batch: readOneBatch(batchBytes, options), bytes: batchBytes });
      offset += size;
    }
  } catch (error) {
    throw asWireError(error);
  }
  return out;
}

function readOneBatch(bytes: Uint8Array, options: ReadRecordBatchesOptions): WireRecordBatch {
  const reader = new Reader(bytes);
  const baseOffset = reader.int64();
  reader.int32(); // batchLength, checked by the caller
  const partitionLeaderEpoch = reader.int32();
  reader.int8(); // magic, checked by the caller
  const storedCrc = reader.uint32();
  if (options.verifyCrc ?? true) {
    const computed = crc32c(bytes.subarray(ATTRIBUTES_OFFSET));
    if (computed !== storedCrc) {
      throw new WireError(
        "corrupt-batch",
        `batch at base offset ${baseOffset}: CRC-32C is ${hex(computed)}, the batch says ${hex(storedCrc)}`,
      );
    }
  }
  const attributes = reader.int16();
  const compressionCode = attributes & 0x07;
  const compression = COMPRESSION_BY_CODE[compressionCode];
  if (compression === undefined)
    throw new WireError("malformed", `batch at base offset ${baseOffset}: unknown compression code ${compressionCode}`);
  const lastOffsetDelta = reader.int32();
  const baseTimestamp = reader.int64();
  const maxTimestamp = reader.int64();
  const producerId = reader.int64();
  const producerEpoch = reader.int16();
  const baseSequence = reader.int32();
  const countAt = reader.offset;
  const count = reader.int32();
  if (count < 0)
    throw new WireError("invalid-length", `batch at base offset ${baseOffset}: record count ${count} is negative`, { offset: countAt });

  const body = decompress(compression, bytes.subarray(RECORD_BATCH_OVERHEAD), options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED);
  if (count * MIN_RECORD_SIZE > body.length) {
    throw new WireError("invalid-length", `batch at base offset ${baseOffset}: ${count} records cannot fit in ${body.length} bytes`, {
      offset: countAt,
    });
  }
  const recordReader = new Reader(body);
  const records: WireRecord[] = new Array(count);
  for (let i = 0; i < count; i++) records[i] = readRecord(recordReader);
  if (recordReader.remaining !== 0) {
    throw new WireError("trailing-bytes", `batch at base offset ${baseOffset}: ${recordReader.remaining} bytes after its ${count} records`);
  }
  return {
    baseOffset,
    partitionLeaderEpoch,
    compression,
    timestampType: attributes & 0x08 ? "log-append-time" : "create-time",
    isTransactional: (attributes & 0x10) !== 0,
    isControl: (attributes & 0x20) !== 0,
    hasDeleteHorizonMs: (attributes & 0x40) !== 0,
    lastOffsetDelta,
    baseTimestamp,
    maxTimestamp,
    producerId,
    producerEpoch,
    baseSequence,
    records,
  };
}

function readVarBytes(reader: Reader, what: string): Uint8Array | null {
  const at = reader.offset;
  const length = reader.varint();
  if (length === -1) return null;
  if (length < 0) throw new WireError("invalid-length", `${what} length ${length} at offset ${at} is negative`, { offset: at });
  return reader.take(length, what);
}

function readRecord(outer: Reader): WireRecord {
  const at = outer.offset;
  const length = outer.varint();
  if (length < MIN_RECORD_SIZE - 1)
    throw new WireError("invalid-length", `record length ${length} at offset ${at} is below the minimum`, { offset: at });
  const reader = outer.slice(length, "record");
  const attributes = reader.int8();
  const timestampDelta = reader.varlong();
  const offsetDelta = reader.varint();
  const key = readVarBytes(reader, "record key");
  const value = readVarBytes(reader, "record value");
  const headerCountAt = reader.offset;
  const headerCount = reader.varint();
  // A header takes at least two bytes (key length, value length).
  if (headerCount < 0 || headerCount * 2 > reader.remaining) {
    throw new WireError("invalid-length", `record header count ${headerCount} at offset ${headerCountAt} does not fit`, {
      offset: headerCountAt,
    });
  }
  const headers: WireRecordHeader[] = new Array(headerCount);
  for (let i = 0; i < headerCount; i++) {
    const keyAt = reader.offset;
    const keyLength = reader.varint();
    if (keyLength < 0)
      throw new WireError("invalid-length", `record header key length ${keyLength} at offset ${keyAt} is negative`, { offset: keyAt });
    const headerKey = reader.utf8(keyLength, "record header key");
    headers[i] = { key: headerKey, value: readVarBytes(reader, "record header value") };
  }
  if (reader.remaining !== 0) {
    throw new WireError("malformed", `record at offset ${at} declares ${length} bytes but its fields take ${length - reader.remaining}`, {
      offset: at,
    });
  }
  return { attributes, timestampDelta, offsetDelta, key, value, headers };
}

function hex(n: number): string {
  return `0x${n.toString(16).toUpperCase().padStart(8, "0")}`;
}

function writeVarBytes(writer: Writer, value: Uint8Array | null): void {
  if (value === null) writer.varint(-1);
  else writer.varint(value.length).bytes(value);
}

function writeRecord(writer: Writer, record: WireRecord, scratch: Writer): void {
  const body = scratch;
  const start = body.length;
  body.int8(record.attributes).varlong(record.timestampDelta).varint(record.offsetDelta);
  writeVarBytes(body, record.key);
  writeVarBytes(body, record.value);
  body.varint(record.headers.length);
  for (const header of record.headers) {
    body.utf8(header.key, (n) => body.varint(n));
    writeVarBytes(body, header.value);
  }
  const bytes = body.viewSince(start);
  writer.varint(bytes.length).bytes(bytes);
}

/** Encodes one batch (none or gzip), computing batchLength and the CRC-32C. */
export function encodeRecordBatch(batch: WireRecordBatch): Uint8Array {
  const recordsWriter = new Writer(1024);
  for (const record of batch.records) writeRecord(recordsWriter, record, new Writer(128));
  const recordsBytes = compress(batch.compression, recordsWriter.finish());

  const writer = new Writer(RECORD_BATCH_OVERHEAD + recordsBytes.length);
  writer.int64(batch.baseOffset).int32(0).int32(batch.partitionLeaderEpoch).int8(CURRENT_MAGIC).uint32(0);
  writer.int16(attributesOf(batch)).int32(batch.lastOffsetDelta).int64(batch.baseTimestamp).int64(batch.maxTimestamp);
  writer.int64(batch.producerId).int16(batch.producerEpoch).int32(batch.baseSequence).int32(batch.records.length);
  writer.bytes(recordsBytes);
  const out = writer.finish();
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setInt32(8, out.length - LOG_OVERHEAD);
  view.setUint32(CRC_OFFSET, crc32c(out.subarray(ATTRIBUTES_OFFSET)));
  return out;
}

/** Concatenates encoded batches into one RECORDS value. */
export function encodeRecordBatches(batches: readonly WireRecordBatch[]): Uint8Array {
  return Buffer.concat(batches.map(encodeRecordBatch));
}

/**
 * Rewrites the fields a partition leader assigns on append: baseOffset and
 * partitionLeaderEpoch lie before the CRC-covered part, so the CRC stays
 * valid. Returns a copy.
 */
export function withAssignedOffset(batchBytes: Uint8Array, baseOffset: bigint, partitionLeaderEpoch: number): Uint8Array {
  const out = Uint8Array.prototype.slice.call(batchBytes);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setBigInt64(0, baseOffset);
  view.setInt32(12, partitionLeaderEpoch);
  return out;
}
