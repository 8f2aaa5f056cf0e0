/** Kafka's `RECORD_BATCH_OVERHEAD` for magic v2: the batch header, before any record. */
export const RECORD_BATCH_OVERHEAD = 61;

/** Bytes of a zig-zag varint (Kafka's `ByteUtils.sizeOfVarint` / `sizeOfVarlong`). */
function varintSize(value: number): number {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  let bytes = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    bytes++;
  }
  return bytes;
}

/**
 * Bytes of one v2 record in a batch (Kafka's `DefaultRecord.sizeInBytes`):
 * length varint, attributes, timestamp and offset deltas, key and value
 * with their lengths (null = -1), and an empty header count.
 */
export function recordSizeInBytes(offsetDelta: number, timestampDelta: number, keyBytes: number | null, valueBytes: number | null): number {
  let body = 1; // attributes
  body += varintSize(timestampDelta);
  body += varintSize(offsetDelta);
  body += keyBytes === null ? 1 : varintSize(keyBytes) + keyBytes;
  body += valueBytes === null ? 1 : varintSize(valueBytes) + valueBytes;
  body += varintSize(0); // headers
  return varintSize(body) + body;
}
