import { getHeapStatistics } from "node:v8";

/** A run about to outgrow the V8 heap: kcsim's own failure (exit 3), said in one line instead of a V8 abort. */
export class HeapLimitError extends Error {
  override readonly name = "HeapLimitError";
}

const MB = 1024 * 1024;
/** V8 aborts before the used heap reaches its limit (measured: at about 80% of a 256 MB heap), so stop with this much left. */
const MIN_HEADROOM_BYTES = 128 * MB;
const HEADROOM_FRACTION = 0.15;

/** Throws a HeapLimitError when the heap in use comes within the headroom of V8's limit. */
export function checkHeap(during: string): void {
  const { used_heap_size: used, heap_size_limit: limit } = getHeapStatistics();
  if (limit - used > Math.max(MIN_HEADROOM_BYTES, limit * HEADROOM_FRACTION)) return;
  throw new HeapLimitError(
    `out of memory ${during}: ${Math.round(used / MB)} MB of the ${Math.round(limit / MB)} MB heap in use; ` +
      "try a smaller run (fewer members, partitions or producers, a shorter durationMs) " +
      "or a larger heap (NODE_OPTIONS=--max-old-space-size=MB)",
  );
}

/**
 * Calls checkHeap every `every` ticks: cheap enough for a simulation's
 * event loop (reading the heap statistics costs about half a microsecond).
 */
export class HeapGuard {
  readonly #during: string;
  readonly #mask: number;
  #ticks = 0;

  /** `every` must be a power of two. */
  constructor(during: string, every = 4096) {
    this.#during = during;
    this.#mask = every - 1;
  }

  tick(): void {
    if ((++this.#ticks & this.#mask) === 0) checkHeap(this.#during);
  }
}
