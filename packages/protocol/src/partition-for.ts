/**
 * Java's `String.hashCode`: h = 31*h + c over UTF-16 code units, with int32
 * wrap-around. JavaScript strings are UTF-16 too, so `charCodeAt` yields
 * exactly Java's code units (surrogate pairs included).
 */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  }
  return h;
}

/** Kafka's `Utils.abs`: `Integer.MIN_VALUE` maps to 0, not to itself. */
export function kafkaAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/**
 * The `__consumer_offsets` partition that hosts a group's coordinator
 * (`GroupCoordinatorService.partitionFor`):
 * `Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions`.
 */
export function partitionFor(groupId: string, numPartitions = 50): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0) {
    throw new RangeError(`numPartitions must be a positive integer, got ${numPartitions}`);
  }
  return kafkaAbs(javaStringHashCode(groupId)) % numPartitions;
}
