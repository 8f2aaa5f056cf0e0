import { availableParallelism } from "node:os";

/**
 * Starting many workers at once makes every one of them slow: each loads
 * its modules (~0.1-0.5 s of CPU) and a hundred of them thrash two cores
 * until the first control call times out. A few at a time is as fast in
 * total and keeps each start short.
 */
export const STARTS_IN_FLIGHT = Math.max(2, availableParallelism() + 1);

/** Like Promise.all over `items.map(task)`, with at most `limit` tasks running at once; results in order. */
export async function boundedAll<T, R>(items: readonly T[], task: (item: T) => Promise<R>, limit = STARTS_IN_FLIGHT): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
