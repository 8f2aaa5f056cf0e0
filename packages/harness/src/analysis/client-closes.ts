import type { ActorId } from "@kcsim/protocol";
import type { ConnectionRecord, SendRecord } from "../history/history-event.js";

/** A client's close of one of its connections, and its history index. */
export interface ClientClose {
  readonly close: ConnectionRecord;
  readonly index: number;
}

/**
 * Each client's closes of its connections, to tell a request that rode a connection its client had closed
 * before it arrived: the kernel's retransmission delivers a closed socket's bytes after the client gave it up.
 */
export class ClientCloses {
  /** client -> connection generation -> its close. */
  readonly #closes = new Map<ActorId, Map<number, ClientClose>>();

  /** Notes a connection event: only a client's close counts. */
  accept(event: ConnectionRecord, index: number): void {
    if (event.what !== "close") return;
    let byGen = this.#closes.get(event.actor);
    if (byGen === undefined) {
      byGen = new Map();
      this.#closes.set(event.actor, byGen);
    }
    byGen.set(event.gen, { close: event, index });
  }

  /** The close of the connection `request` rode, when its client closed it before the request arrived; null otherwise. */
  closedBefore(request: SendRecord): ClientClose | null {
    const closed = this.#closes.get(request.from)?.get(request.conn ?? 0);
    return closed !== undefined && closed.close.t <= (request.at[0] as number) ? closed : null;
  }
}
