/**
 * Kafka's `Utils.murmur2` (MurmurHash2, seed 0x9747b28c) over a byte array,
 * bit-exact with the Java version: a signed 32-bit result.
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  const m = 0x5bd1e995;
  const r = 24;
  let h = 0x9747b28c ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = (data[i4] as number) | ((data[i4 + 1] as number) << 8) | ((data[i4 + 2] as number) << 16) | ((data[i4 + 3] as number) << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  // The tail: Java's switch falls through from case 3 to case 1.
  const tail = length & ~3;
  const rest = length % 4;
  if (rest >= 3) h ^= (data[tail + 2] as number) << 16;
  if (rest >= 2) h ^= (data[tail + 1] as number) << 8;
  if (rest >= 1) {
    h ^= data[tail] as number;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's `Utils.toPositive`: clears the sign bit (not Math.abs). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

const utf8 = new TextEncoder();

/** The default partitioner for a keyed record: toPositive(murmur2(UTF-8 key bytes)) % partitions. */
export function partitionForKey(key: string, numPartitions: number): number {
  let hash = keyHashes.get(key);
  if (hash === undefined) {
    hash = toPositive(murmur2(utf8.encode(key)));
    if (keyHashes.size >= MAX_CACHED_KEYS) keyHashes.clear();
    keyHashes.set(key, hash);
  }
  return hash % numPartitions;
}

/** The positive murmur2 of keys seen lately (workloads draw their keys from a bounded set). */
const keyHashes = new Map<string, number>();
const MAX_CACHED_KEYS = 10_000;
