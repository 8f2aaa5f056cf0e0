/** How many partitions a checker's message names before it says how many more. */
const MAX_LISTED = 6;

/** Partition keys as a message names them: in topic, then numeric order ("swarm-2, swarm-10"), at most six and how many more. */
export function listedPartitions(partitions: Iterable<string>): string {
  const split = (key: string): [string, number] => [key.slice(0, key.lastIndexOf("-")), Number(key.slice(key.lastIndexOf("-") + 1))];
  const sorted = [...partitions].sort((a, b) => {
    const [ta, pa] = split(a);
    const [tb, pb] = split(b);
    return ta === tb ? pa - pb : ta < tb ? -1 : 1;
  });
  if (sorted.length === 0) return "nothing";
  if (sorted.length <= MAX_LISTED) return sorted.join(", ");
  return `${sorted.slice(0, MAX_LISTED).join(", ")} and ${sorted.length - MAX_LISTED} more`;
}
