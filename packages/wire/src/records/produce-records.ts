import { ErrorCode } from "@kcsim/protocol";
import { WireError } from "../wire-error.js";
import { type DecodedRecordBatch, readRecordBatches } from "./record-batch-codec.js";

/** Kafka's UNSUPPORTED_COMPRESSION_TYPE (Errors.java), which @kcsim/protocol's ErrorCode table does not list. */
export const UNSUPPORTED_COMPRESSION_TYPE = 76;

export type ProduceRecordsCheck =
  | { readonly ok: true; readonly decoded: DecodedRecordBatch }
  | { readonly ok: false; readonly errorCode: number; readonly message: string };

/**
 * What a partition leader checks in one partition's RECORDS of a Produce
 * request, with the error code Kafka answers for that partition
 * (ProduceRequest.validateRecords, LogValidator):
 *  - exactly one record batch, of magic 2 (INVALID_RECORD from v3; before
 *    v3 Kafka would convert a legacy message set, this endpoint answers
 *    UNSUPPORTED_FOR_MESSAGE_FORMAT, and it wants one batch there too);
 *  - zstd only from Produce v7 (UNSUPPORTED_COMPRESSION_TYPE);
 *  - a valid CRC and structure (CORRUPT_MESSAGE);
 *  - no control batch from a client, record offsets 0..lastOffsetDelta (INVALID_RECORD).
 * Beyond Kafka: snappy, lz4 and zstd batches are not decoded here and get
 * UNSUPPORTED_COMPRESSION_TYPE.
 */
export function checkProduceRecords(
  produceVersion: number,
  records: Uint8Array | null,
  maxUncompressedBytes?: number,
): ProduceRecordsCheck {
  const invalid = (message: string): ProduceRecordsCheck => ({ ok: false, errorCode: ErrorCode.INVALID_RECORD, message });
  if (records === null || records.length === 0) return invalid(`Produce v${produceVersion} needs one record batch per partition, got none`);
  let batches: DecodedRecordBatch[];
  try {
    batches = readRecordBatches(records, maxUncompressedBytes === undefined ? {} : { maxUncompressedBytes });
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    if (error.kind === "unsupported-magic") {
      if (produceVersion < 3) {
        return {
          ok: false,
          errorCode: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
          message: `legacy message sets are not read here (${error.message})`,
        };
      }
      return invalid(`Produce v${produceVersion} only carries record batches of magic 2 (${error.message})`);
    }
    if (error.kind === "unsupported-compression") return { ok: false, errorCode: UNSUPPORTED_COMPRESSION_TYPE, message: error.message };
    return { ok: false, errorCode: ErrorCode.CORRUPT_MESSAGE, message: error.message };
  }
  const [decoded, extra] = batches;
  if (decoded === undefined) return invalid(`Produce v${produceVersion} needs one record batch per partition, got none`);
  if (extra !== undefined)
    return invalid(`Produce v${produceVersion} allows exactly one record batch per partition, got ${batches.length}`);
  const { batch } = decoded;
  if (batch.compression === "zstd" && produceVersion < 7) {
    return { ok: false, errorCode: UNSUPPORTED_COMPRESSION_TYPE, message: `Produce v${produceVersion} may not use zstd` };
  }
  if (batch.isControl) return invalid("clients may not write control records");
  if (batch.records.length !== batch.lastOffsetDelta + 1) {
    return invalid(`batch of ${batch.records.length} records says its last offset delta is ${batch.lastOffsetDelta}`);
  }
  for (const [i, record] of batch.records.entries()) {
    if (record.offsetDelta !== i) return invalid(`record ${i} has offset delta ${record.offsetDelta}`);
  }
  return { ok: true, decoded };
}
