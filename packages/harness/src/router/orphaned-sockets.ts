import { type ActorId, getOrCreate, type Micros } from "@kcsim/protocol";
import { RTO_MIN_US } from "./tcp-retransmission.js";

/** Linux's net.ipv4.tcp_orphan_retries: its default 0 means 8 retransmissions for a closed socket (tcp_orphan_retries()). */
const ORPHAN_RETRIES = 8;

/**
 * How long after a segment's first transmission a closed socket gives up on
 * it: Linux's retransmits_timed_out with boundary 8 and a 200 ms base,
 * (2^9 - 1) x 200 ms = 102.2 s. The timer firing at that moment, the one
 * that would send the ninth retransmission, kills the socket instead
 * (tcp_write_timeout, then tcp_write_err). So a closed socket's last try
 * at a segment is its eighth retransmission, 51 s after the send.
 */
export const ORPHAN_GIVE_UP_US: Micros = ((2 << ORPHAN_RETRIES) - 1) * RTO_MIN_US;

/**
 * Connection mode: what the kernel of a closed socket still sends. A client
 * that gives a connection up (request.timeout.ms) closes it without
 * SO_LINGER, so the bytes a partition holds back stay with the kernel,
 * which keeps retransmitting them, but only tcp_orphan_retries times: a
 * held segment whose retransmission after the heal is its ninth or later
 * (ORPHAN_GIVE_UP_US or more after its send) never arrives if its sender
 * closed the connection before then, and nothing behind it on that
 * connection in that direction arrives either (the socket is gone). An
 * open socket goes on for tcp_retries2 (15: about 924.6 s), which is not
 * modelled.
 *
 * Keyed by client, then wire id (+gen: the client's bytes, -gen: the
 * server's): the direction of the bytes and so the socket that sends them.
 */
export class OrphanedSockets {
  /** The earliest delivery due that a closed socket would not make, by client and wire id (only held sends set it). */
  readonly #lateFrom = new Map<ActorId, Map<number, Micros>>();
  /** SYNs a partition held, by client and generation: when each is due, and when TCP sent the retransmission that gets through. */
  readonly #heldSyns = new Map<ActorId, Map<number, { readonly due: Micros; readonly retransmitAt: Micros }>>();
  /** When the sending end closed (its FIN, or its reset when its process died), by client and wire id: the first close. */
  readonly #closedAt = new Map<ActorId, Map<number, Micros>>();

  /**
   * A partition held a message sent at `sentAt` on (client, wireId) until TCP's retransmission at
   * `retransmitAt`; it is due at `due`.
   */
  held(client: ActorId, wireId: number, sentAt: Micros, retransmitAt: Micros, due: Micros): void {
    if (retransmitAt - sentAt < ORPHAN_GIVE_UP_US) return;
    const byWire = getOrCreate(this.#lateFrom, client, () => new Map<number, Micros>());
    const earlier = byWire.get(wireId);
    if (earlier === undefined || due < earlier) byWire.set(wireId, due);
  }

  /**
   * A partition held the SYN of connection (client, gen) until TCP's retransmission at `retransmitAt`; it is due
   * at `due`. A client that closes a socket still in SYN_SENT sends nothing more on it (Linux's tcp_close moves it
   * straight to CLOSE): if the close comes before that retransmission, the SYN never arrives.
   */
  heldSyn(client: ActorId, gen: number, retransmitAt: Micros, due: Micros): void {
    getOrCreate(this.#heldSyns, client, () => new Map()).set(gen, { due, retransmitAt });
  }

  /** The sending end of (client, wireId) closed at `at` (it sends nothing more there). */
  closed(client: ActorId, wireId: number, at: Micros): void {
    const byWire = getOrCreate(this.#closedAt, client, () => new Map<number, Micros>());
    if (!byWire.has(wireId)) byWire.set(wireId, at);
  }

  /**
   * Whether a delivery on (client, wireId) due at `due` is lost because its socket gave up: it is due at or
   * after the first late delivery there, and the sender had closed the connection `safeLookaheadUs` before that
   * delivery was due (so every host knows of the close when it hands the delivery out).
   */
  lost(client: ActorId, wireId: number, due: Micros, safeLookaheadUs: Micros): boolean {
    if (this.#heldSyns.size !== 0 && wireId > 0 && this.#synNeverSent(client, wireId, due, safeLookaheadUs)) return true;
    if (this.#lateFrom.size === 0) return false; // nothing was ever held that late: the usual case, on every delivery
    const late = this.#lateFrom.get(client)?.get(wireId);
    if (late === undefined || due < late) return false;
    const closedAt = this.#closedAt.get(client)?.get(wireId);
    return closedAt !== undefined && closedAt + safeLookaheadUs <= late;
  }

  /**
   * Whether a delivery on the client's side of connection (client, gen), due at `due`, is its held SYN or
   * anything behind it, and the client closed the connection before TCP would have sent the SYN again: then the
   * SYN never went out again and the connection never existed. The close must come safeLookaheadUs before that
   * retransmission, so that every host knows of it when it hands the delivery out (the SYN is due at least a
   * lookahead after its retransmission).
   */
  #synNeverSent(client: ActorId, gen: number, due: Micros, safeLookaheadUs: Micros): boolean {
    const syn = this.#heldSyns.get(client)?.get(gen);
    if (syn === undefined || due < syn.due) return false;
    const closedAt = this.#closedAt.get(client)?.get(gen);
    return closedAt !== undefined && closedAt + safeLookaheadUs <= syn.retransmitAt;
  }
}
