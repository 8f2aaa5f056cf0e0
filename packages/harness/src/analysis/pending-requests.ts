import { type ActorId, getOrCreate } from "@kcsim/protocol";
import type { SendRecord } from "../history/history-event.js";

/** A request that has arrived at its server, or will, and is not answered yet. */
export interface PendingRequest<Api extends string> {
  readonly api: Api;
  readonly send: SendRecord;
  /** The send event's history index. */
  readonly index: number;
}

/** An answer of one of the followed APIs, and the request it answered (null: none known). */
export interface AnsweredRequest<Api extends string> {
  readonly api: Api;
  readonly answer: SendRecord;
  readonly request: PendingRequest<Api> | null;
}

/**
 * Each connection's unanswered requests of a few APIs, to pair an answer with the request it answers. On a
 * connection the server serves one request at a time and answers in order (Kafka mutes the channel while it
 * serves one, and so does kcsim's connection endpoint), so an answer of an API answers the oldest unanswered
 * request of that API on its connection. A request the network never delivers waits for no answer; a server
 * that goes down answers none of those it held.
 *
 * Connection mode only: a datagram network has no connections to pair requests and answers on (its sends
 * carry no connection, and are passed over).
 */
export class PendingRequests<Api extends string> {
  /** The send events to read: `send <Api>Request` and `send <Api>Response` of each API. */
  readonly reads: readonly string[];
  readonly #apiOfType = new Map<string, { readonly api: Api; readonly request: boolean }>();
  /** client -> connection generation -> API -> its unanswered requests, oldest first ((client, gen) names one connection). */
  readonly #byConnection = new Map<ActorId, Map<number, Map<Api, PendingRequest<Api>[]>>>();

  constructor(apis: readonly Api[]) {
    for (const api of apis) {
      this.#apiOfType.set(`${api}Request`, { api, request: true });
      this.#apiOfType.set(`${api}Response`, { api, request: false });
    }
    this.reads = [...this.#apiOfType.keys()].map((type) => `send ${type}`);
  }

  /**
   * Follows one send: a delivered request of a followed API is queued on its connection; an answer is returned
   * with the request it answered, which leaves the queue. Anything else (another API, a request, a send
   * without a connection) returns undefined.
   */
  accept(event: SendRecord, index: number): AnsweredRequest<Api> | undefined {
    if (event.conn === undefined) return undefined;
    const kind = this.#apiOfType.get(event.type);
    if (kind === undefined) return undefined;
    if (kind.request) {
      if (event.at.length > 0) {
        const byApi = getOrCreate(getOrCreate(this.#byConnection, event.from, newByGen<Api>), event.conn, newByApi<Api>);
        getOrCreate(byApi, kind.api, newQueue<Api>).push({ api: kind.api, send: event, index });
      }
      return undefined;
    }
    // Answers ride the connection's negative generation, from the server back to the client.
    const request = this.#byConnection.get(event.to)?.get(-event.conn)?.get(kind.api)?.shift() ?? null;
    return { api: kind.api, answer: event, request };
  }

  /** `server` crashed or stopped: it answers none of the requests it held. */
  serverDown(server: ActorId): void {
    for (const byGen of this.#byConnection.values())
      for (const byApi of byGen.values()) for (const [api, queue] of byApi) if (queue[0]?.send.to === server) byApi.delete(api);
  }

  /** The unanswered requests of `api`, of `client`'s connections (every client's when undefined). */
  *unanswered(api: Api, client?: ActorId): IterableIterator<PendingRequest<Api>> {
    const clients = client === undefined ? this.#byConnection.values() : [this.#byConnection.get(client) ?? new Map()];
    for (const byGen of clients) for (const byApi of byGen.values()) yield* byApi.get(api) ?? [];
  }
}

const newByGen = <Api extends string>(): Map<number, Map<Api, PendingRequest<Api>[]>> => new Map();
const newByApi = <Api extends string>(): Map<Api, PendingRequest<Api>[]> => new Map();
const newQueue = <Api extends string>(): PendingRequest<Api>[] => [];
