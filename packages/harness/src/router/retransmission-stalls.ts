import { type ActorId, getOrCreate, type Micros } from "@kcsim/protocol";

/** A stream's oldest unacknowledged segment while TCP backs off on it. */
export interface StalledHead {
  /** When the segment was first sent. */
  readonly sentAt: Micros;
  /** When the retransmission that gets through goes out (Infinity: none does). */
  readonly resumeAt: Micros;
  /** The partition that held it (the fault a segment waiting behind it is held by). */
  readonly fault: string;
}

/**
 * Connection mode: which streams (one connection, one direction) are
 * stalled behind a segment a partition held. Linux keeps one
 * retransmission timer per socket, on its oldest unacknowledged segment
 * (tcp_retransmit_timer retransmits the head of the retransmission queue
 * and doubles the socket's backoff), and after a timeout the congestion
 * window is one segment (tcp_enter_loss), so what the application writes
 * meanwhile waits in the socket. When the head's retransmission gets
 * through, its acknowledgement releases the rest at once: a segment sent
 * behind the head goes out when the head does, not on a backoff schedule
 * of its own. Keyed by client, then wire id (+gen: the client's bytes,
 * -gen: the server's).
 */
export class RetransmissionStalls {
  readonly #heads = new Map<ActorId, Map<number, StalledHead>>();

  /** The head that a segment sent at `now` on (client, wireId) waits behind, if TCP has not sent it through yet. */
  waitingAt(client: ActorId, wireId: number, now: Micros): StalledHead | undefined {
    if (this.#heads.size === 0) return undefined;
    const head = this.#heads.get(client)?.get(wireId);
    return head !== undefined && head.resumeAt > now ? head : undefined;
  }

  /** A partition held a segment with nothing stalled ahead of it (or held it longer than the head ahead): the stream waits for it. */
  stalled(client: ActorId, wireId: number, head: StalledHead): void {
    getOrCreate(this.#heads, client, () => new Map<number, StalledHead>()).set(wireId, head);
  }
}
