import type { Context } from "@kcsim/protocol";

export type Continuation = (ctx: Context) => void;

/**
 * A one-shot event other steps can wait for (the role CompletableFutures
 * play in Kafka's consumer). Continuations run synchronously, inside the
 * actor event that completes it, with that event's context; one added after
 * completion runs at once.
 */
export class Completion {
  #done = false;
  #waiters: Continuation[] = [];

  get done(): boolean {
    return this.#done;
  }

  whenDone(continuation: Continuation, ctx: Context): void {
    if (this.#done) continuation(ctx);
    else this.#waiters.push(continuation);
  }

  complete(ctx: Context): void {
    if (this.#done) return;
    this.#done = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter(ctx);
  }
}
