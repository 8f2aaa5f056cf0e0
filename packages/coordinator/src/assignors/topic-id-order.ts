/**
 * Java `org.apache.kafka.common.Uuid` facts the assignors depend on: the
 * ordering `Uuid.compareTo` gives topic ids (the last tie-break of the
 * heterogeneous uniform assignor) and the iteration order of a
 * `java.util.HashSet<Uuid>` (what decides homogeneous results in Kafka's
 * tests; the simulator takes that order as an explicit input instead).
 */

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE64URL_VALUE = new Map<string, number>([...BASE64URL].map((char, index) => [char, index]));

/**
 * The 16 bytes of a topic id in Kafka's string form (22 base64url characters,
 * `Uuid.toString()`), or null when the string is not one.
 */
export function decodeTopicId(topicId: string): Uint8Array | null {
  if (topicId.length !== 22) return null;
  const bytes = new Uint8Array(16);
  let bits = 0;
  let bitCount = 0;
  let byteIndex = 0;
  for (const char of topicId) {
    const value = BASE64URL_VALUE.get(char);
    if (value === undefined) return null;
    bits = ((bits << 6) | value) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8) {
      bitCount -= 8;
      // 22 characters carry 132 bits; like Java's decoder, the last 4 are dropped.
      if (byteIndex < 16) bytes[byteIndex++] = (bits >> bitCount) & 0xff;
    }
  }
  return bytes;
}

/**
 * Orders topic ids like `Uuid.compareTo`: most significant 64 bits as a signed
 * long, then the least significant 64 bits as a signed long. Ids that are not
 * Kafka-form UUIDs sort after those that are, by UTF-16 code units.
 */
export function compareTopicIds(a: string, b: string): number {
  const x = decodeTopicId(a);
  const y = decodeTopicId(b);
  if (x !== null && y !== null) {
    for (let i = 0; i < 16; i++) {
      // Bytes 0 and 8 carry the sign bits of the two longs.
      const flip = i === 0 || i === 8 ? 0x80 : 0;
      const diff = ((x[i] ?? 0) ^ flip) - ((y[i] ?? 0) ^ flip);
      if (diff !== 0) return diff < 0 ? -1 : 1;
    }
    return 0;
  }
  if (x !== null) return -1;
  if (y !== null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function readInt32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] ?? 0) << 24) | ((bytes[offset + 1] ?? 0) << 16) | ((bytes[offset + 2] ?? 0) << 8) | (bytes[offset + 3] ?? 0) | 0;
}

/** `Uuid.hashCode()`: x = msb ^ lsb, then `(int)(x >> 32) ^ (int)x`. */
export function javaUuidHashCode(topicId: string): number {
  const bytes = decodeTopicId(topicId);
  if (bytes === null) throw new RangeError(`not a Kafka topic id: ${topicId}`);
  const xHigh = readInt32(bytes, 0) ^ readInt32(bytes, 8);
  const xLow = readInt32(bytes, 4) ^ readInt32(bytes, 12);
  return xHigh ^ xLow;
}

/**
 * The order in which `new HashSet<>(ids)` iterates (ids inserted in the
 * given order): bucket `(h ^ h >>> 16) & (capacity - 1)` ascending, insertion
 * order within a bucket; capacity as `HashSet(Collection)` sizes it.
 */
export function javaHashSetIterationOrder(topicIds: readonly string[]): string[] {
  const distinct = [...new Set(topicIds)];
  let capacity = 16;
  const wanted = Math.max(Math.floor(distinct.length / 0.75) + 1, 16);
  while (capacity < wanted) capacity *= 2;
  const keyed = distinct.map((topicId, insertion) => {
    const h = javaUuidHashCode(topicId);
    return { topicId, insertion, bucket: (h ^ (h >>> 16)) & (capacity - 1) };
  });
  keyed.sort((x, y) => x.bucket - y.bucket || x.insertion - y.insertion);
  return keyed.map((entry) => entry.topicId);
}
