/** The earlier of two wake-up times, null meaning none. */
export function earlier(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}
