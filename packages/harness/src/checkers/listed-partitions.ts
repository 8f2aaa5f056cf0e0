import { compareTp, parseTpKey, tpKey } from "@kcsim/protocol";

/** How many partitions a checker's message names before it says how many more. */
const MAX_LISTED = 6;

/** Partition keys as a message names them: in topic, then numeric order ("swarm-2, swarm-10"), at most six and how many more. */
export function listedPartitions(partitions: Iterable<string>): string {
  const sorted = [...partitions]
    .map(parseTpKey)
    .sort(compareTp)
    .map(({ topic, partition }) => tpKey(topic, partition));
  if (sorted.length === 0) return "nothing";
  if (sorted.length <= MAX_LISTED) return sorted.join(", ");
  return `${sorted.slice(0, MAX_LISTED).join(", ")} and ${sorted.length - MAX_LISTED} more`;
}
