import type { Micros } from "@kcsim/protocol";
import type { CompletedFetch } from "./completed-fetch.js";

const NOTHING_BUFFERED: ReadonlySet<string> = new Set();

/**
 * Fetched data waiting for the application, oldest first (Kafka's
 * `FetchBuffer`). A partition with data here is "buffered": it is not
 * fetched again until its data is consumed or dropped.
 */
export class FetchBuffer {
  #fetches: CompletedFetch[] = [];

  add(fetch: CompletedFetch): void {
    this.#fetches.push(fetch);
  }

  /** The data still waiting, oldest first (consumed entries are pruned). */
  pending(): readonly CompletedFetch[] {
    // Asked on every pass of the fetcher: a new array only when something was consumed.
    if (this.#fetches.some((fetch) => fetch.isConsumed)) this.#fetches = this.#fetches.filter((fetch) => !fetch.isConsumed);
    return this.#fetches;
  }

  /** Keys of the partitions with data waiting. */
  bufferedPartitions(): ReadonlySet<string> {
    const pending = this.pending();
    return pending.length === 0 ? NOTHING_BUFFERED : new Set(pending.map((fetch) => fetch.key));
  }

  /** Drops (drains) the waiting data of the partitions `drop` selects. */
  drop(drop: (key: string) => boolean, now: Micros): void {
    for (const fetch of this.pending()) if (drop(fetch.key)) fetch.drain(now);
    this.pending();
  }
}
