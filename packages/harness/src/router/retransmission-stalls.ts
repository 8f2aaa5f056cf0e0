import { type ActorId, getOrCreate, type Micros } from "@kcsim/protocol";

/** A stream's oldest unacknowledged segment while TCP backs off on it. */
export interface StalledHead {
  /** When the segment was first sent: its retransmissions are backed off from here. */
  readonly sentAt: Micros;
  /**
   * From when what the application writes waits behind it. A segment a partition held: from its send (the
   * receiver's kernel keeps anything after it out of order until it arrives). A segment that arrived but whose
   * acknowledgement a partition held: from its first retransmission timeout, when the congestion window falls to
   * one segment (before it, the window lets new data out).
   */
  readonly holdsFrom: Micros;
  /** When the retransmission that gets through, and is acknowledged, goes out (Infinity: none does). */
  readonly resumeAt: Micros;
  /** The partition that held it or its acknowledgement (the fault a segment waiting behind it is held by). */
  readonly fault: string;
}

/**
 * Connection mode: which streams (one connection, one direction) are
 * stalled behind a segment TCP has not had acknowledged. Linux keeps one
 * retransmission timer per socket, on its oldest unacknowledged segment
 * (tcp_retransmit_timer retransmits the head of the retransmission queue
 * and doubles the socket's backoff), and after a timeout the congestion
 * window is one segment (tcp_enter_loss), so what the application writes
 * meanwhile waits in the socket. When the head's retransmission gets
 * through and is acknowledged, its acknowledgement releases the rest at
 * once: a segment sent behind the head goes out when the head does, not on
 * a backoff schedule of its own. A segment that arrived while a partition
 * held its acknowledgement is a head as well: its sender cannot tell it
 * from one that was lost. Keyed by client, then wire id (+gen: the
 * client's bytes, -gen: the server's).
 */
export class RetransmissionStalls {
  readonly #heads = new Map<ActorId, Map<number, StalledHead>>();

  /** The head that a segment sent at `now` on (client, wireId) waits behind, if TCP has not sent it through yet. */
  waitingAt(client: ActorId, wireId: number, now: Micros): StalledHead | undefined {
    const head = this.unacknowledgedAt(client, wireId, now);
    return head !== undefined && head.holdsFrom <= now ? head : undefined;
  }

  /**
   * The stream's head at `now` if it has not been acknowledged by then, whether or not it holds back what is
   * written at `now` yet: an acknowledgement of the head acknowledges everything the receiver had before it.
   */
  unacknowledgedAt(client: ActorId, wireId: number, now: Micros): StalledHead | undefined {
    if (this.#heads.size === 0) return undefined;
    const head = this.#heads.get(client)?.get(wireId);
    return head !== undefined && head.resumeAt > now ? head : undefined;
  }

  /**
   * A partition held a segment with nothing stalled ahead of it (or held it, or its acknowledgement, longer than
   * the head ahead was held): the stream waits for it.
   */
  stalled(client: ActorId, wireId: number, head: StalledHead): void {
    getOrCreate(this.#heads, client, () => new Map<number, StalledHead>()).set(wireId, head);
  }
}
