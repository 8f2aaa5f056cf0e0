import type { ActorId, Micros } from "@kcsim/protocol";
import type { ProducerBatch } from "./producer-batch.js";

/** A ProduceRequest sent and not answered yet. */
export interface InFlightProduce {
  readonly correlationId: number;
  readonly node: number;
  /** The broker actor the request went to (its connection). */
  readonly host: ActorId;
  readonly sentAt: Micros;
  readonly batches: readonly ProducerBatch[];
}

/**
 * The producer's ProduceRequests in flight (Kafka's `InFlightRequests`, for
 * produce), by correlation id and in the order they were sent. The sender
 * walks them several times on every pass (request and delivery timeouts,
 * its wake-up time, the count per node), so they are also kept in a plain
 * array, which a walk reads without making an iterator. There are at most
 * max.in.flight.requests.per.connection per broker, so taking one out of
 * the array by a scan costs little.
 */
export class InFlightProduceRequests {
  readonly #byCorrelationId = new Map<number, InFlightProduce>();
  readonly #inSendOrder: InFlightProduce[] = [];

  get size(): number {
    return this.#inSendOrder.length;
  }

  get(correlationId: number): InFlightProduce | undefined {
    return this.#byCorrelationId.get(correlationId);
  }

  add(request: InFlightProduce): void {
    if (this.#byCorrelationId.has(request.correlationId)) throw new Error(`produce request ${request.correlationId} is already in flight`);
    this.#byCorrelationId.set(request.correlationId, request);
    this.#inSendOrder.push(request);
  }

  /** Takes the request out (answered, or failed with its connection); false if it was not in flight. */
  delete(correlationId: number): boolean {
    const request = this.#byCorrelationId.get(correlationId);
    if (request === undefined) return false;
    this.#byCorrelationId.delete(correlationId);
    this.#inSendOrder.splice(this.#inSendOrder.indexOf(request), 1);
    return true;
  }

  /** The requests in the order they were sent. Live: a caller that deletes while it walks must walk a copy. */
  inSendOrder(): readonly InFlightProduce[] {
    return this.#inSendOrder;
  }

  /** How many are in flight to `node`. */
  countTo(node: number): number {
    const requests = this.#inSendOrder;
    let n = 0;
    for (let i = 0; i < requests.length; i++) if ((requests[i] as InFlightProduce).node === node) n++;
    return n;
  }

  /** How many are in flight on the connection to `host`. */
  countOn(host: ActorId): number {
    const requests = this.#inSendOrder;
    let n = 0;
    for (let i = 0; i < requests.length; i++) if ((requests[i] as InFlightProduce).host === host) n++;
    return n;
  }
}
