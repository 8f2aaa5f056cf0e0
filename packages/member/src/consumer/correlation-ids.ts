/**
 * The correlation ids of one consumer process: a single counter shared by
 * every request it sends (the member's own and its fetcher's), as Kafka's
 * one NetworkClient numbers them, so no two requests in flight ever carry
 * the same id. A restart is a new process and starts again at 1.
 */
export class CorrelationIds {
  #next = 1;

  next(): number {
    return this.#next++;
  }
}
