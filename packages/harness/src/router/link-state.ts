import type { ActorId, Micros } from "@kcsim/protocol";

/** murmur3's 32-bit finalizer: every input bit moves every output bit. */
function fmix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * What the router remembers about one directed link (sender -> receiver):
 * the latest delivery time it promised (datagram mode: the link is FIFO;
 * connection mode: each connection on it is, see `connectionDue`), how
 * many messages it has routed, and, per message fault (by its index in the
 * plan), the Gilbert-Elliott state and the bandwidth busy-until time.
 *
 * Randomness is counter-based: the i-th draw for the n-th message of the
 * link is a hash of (run seed, link, n, i). A message's latency and fault
 * draws therefore depend on nothing but its place on its own link, so
 * removing or neutralising one fault decision (a shrinker's reduction)
 * leaves every other message's draws exactly as they were.
 */
export class LinkState {
  readonly name: string;
  lastDue: Micros = 0;
  /**
   * Connection mode: the latest delivery time promised on each connection
   * that crosses the link in this direction, by its signed generation (+gen:
   * the sender is the connection's client, -gen: its server). TCP orders
   * the bytes of one stream, not those of two: a message held back on a
   * connection its client has given up does not hold back the next
   * connection's handshake.
   */
  readonly #connectionDue = new Map<number, Micros>();
  /** The connection the link carried last and its latest delivery time (a link mostly carries one connection in a row). */
  #lastConnection = 0;
  #lastConnectionDue: Micros = 0;
  /** Messages routed on the link so far; the current message is number `count` - 1. */
  count = 0;
  /** Per fault index: Gilbert-Elliott state (true = bad); absent = good. */
  readonly burstBad: boolean[] = [];
  /** Per fault index: when the link's bandwidth is free again; absent = 0. */
  readonly busyUntil: Micros[] = [];
  readonly #key: number;
  #draw = 0;
  /** `draw` as a function of its own, handed to the delay samplers. */
  readonly random = (): number => this.draw();

  constructor(name: string, seed: number) {
    this.name = name;
    this.#key = fmix32(fnv1a(name) ^ fmix32(seed % 0x100000000) ^ fmix32(Math.floor(seed / 0x100000000) + 0x27d4eb2f));
  }

  /**
   * A uniform draw in [0, 1) for the current message. A method (one function
   * for every link) rather than only the per-link `random`, so the router's
   * call sites stay monomorphic and inline it.
   */
  draw(): number {
    const base = fmix32(this.#key ^ fmix32(Math.imul(this.count, 0x9e3779b1) ^ fmix32(this.#draw++ + 0x632be5ab)));
    const high = fmix32(base ^ 0x7f4a7c15) >>> 11; // 21 bits
    return (high * 0x100000000 + base) / 2 ** 53;
  }

  /**
   * Connection mode: the delivery time of a message ready to arrive at
   * `ready` on the connection `connection` (signed generation, see
   * #connectionDue): not before anything sent earlier on that connection.
   */
  dueOnConnection(connection: number, ready: Micros): Micros {
    if (connection !== this.#lastConnection) {
      if (this.#lastConnection !== 0) this.#connectionDue.set(this.#lastConnection, this.#lastConnectionDue);
      this.#lastConnection = connection;
      this.#lastConnectionDue = this.#connectionDue.get(connection) ?? 0;
    }
    const due = Math.max(ready, this.#lastConnectionDue);
    this.#lastConnectionDue = due;
    return due;
  }

  /** A new message on the link: its draws start afresh from its own number. */
  next(): number {
    this.#draw = 0;
    return this.count++;
  }
}

/** One sender's links: all of them by receiver, and the one it wrote to last (a sender mostly writes to one peer in a row). */
class SenderLinks {
  readonly sender: ActorId;
  readonly byReceiver = new Map<ActorId, LinkState>();
  /** Made with the first link, so these are never empty: comparing two strings is cheaper than a string and maybe-null. */
  lastReceiver: ActorId;
  lastLink: LinkState;

  constructor(sender: ActorId, receiver: ActorId, link: LinkState) {
    this.sender = sender;
    this.byReceiver.set(receiver, link);
    this.lastReceiver = receiver;
    this.lastLink = link;
  }
}

/**
 * The LinkState of every link that has carried a message, created on first
 * use. Looked up for every message: a caller that knows the sender's origin
 * rank (OriginRanks) finds the sender's links by it instead of by its id,
 * and a sender writing to the receiver it wrote to last finds that link
 * without a lookup.
 */
export class LinkTable {
  readonly #bySender = new Map<ActorId, SenderLinks>();
  /** The same SenderLinks by the sender's origin rank, for the callers that give it. */
  readonly #byRank: (SenderLinks | undefined)[] = [];
  readonly #seed: number;

  constructor(seed: number) {
    this.#seed = seed;
  }

  /** The link from -> to; `fromRank` (optional, -1 = unknown) is the sender's origin rank. */
  get(from: ActorId, to: ActorId, fromRank = -1): LinkState {
    let sender = fromRank >= 0 ? this.#byRank[fromRank] : undefined;
    if (sender === undefined || sender.sender !== from) {
      sender = this.#bySender.get(from);
      if (sender === undefined) {
        const link = new LinkState(`${from}>${to}`, this.#seed);
        sender = new SenderLinks(from, to, link);
        this.#bySender.set(from, sender);
      }
      if (fromRank >= 0) this.#byRank[fromRank] = sender;
    }
    if (sender.lastReceiver === to) return sender.lastLink;
    let link = sender.byReceiver.get(to);
    if (link === undefined) {
      link = new LinkState(`${from}>${to}`, this.#seed);
      sender.byReceiver.set(to, link);
    }
    sender.lastReceiver = to;
    sender.lastLink = link;
    return link;
  }
}
