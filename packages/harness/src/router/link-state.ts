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
 * the latest delivery time it promised (links are FIFO), how many messages
 * it has routed, and, per message fault (by its index in the plan), the
 * Gilbert-Elliott state and the bandwidth busy-until time.
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
  /** Messages routed on the link so far; the current message is number `count` - 1. */
  count = 0;
  /** Per fault index: Gilbert-Elliott state (true = bad); absent = good. */
  readonly burstBad: boolean[] = [];
  /** Per fault index: when the link's bandwidth is free again; absent = 0. */
  readonly busyUntil: Micros[] = [];
  readonly #key: number;
  #draw = 0;
  /** A uniform draw in [0, 1) for the current message: `random()` is handed to the delay samplers. */
  readonly random = (): number => {
    const base = fmix32(this.#key ^ fmix32(Math.imul(this.count, 0x9e3779b1) ^ fmix32(this.#draw++ + 0x632be5ab)));
    const high = fmix32(base ^ 0x7f4a7c15) >>> 11; // 21 bits
    return (high * 0x100000000 + base) / 2 ** 53;
  };

  constructor(name: string, seed: number) {
    this.name = name;
    this.#key = fmix32(fnv1a(name) ^ fmix32(seed % 0x100000000) ^ fmix32(Math.floor(seed / 0x100000000) + 0x27d4eb2f));
  }

  /** A new message on the link: its draws start afresh from its own number. */
  next(): number {
    this.#draw = 0;
    return this.count++;
  }
}

/** The LinkState of every link that has carried a message, created on first use. */
export class LinkTable {
  readonly #bySender = new Map<ActorId, Map<ActorId, LinkState>>();
  readonly #seed: number;

  constructor(seed: number) {
    this.#seed = seed;
  }

  get(from: ActorId, to: ActorId): LinkState {
    let byReceiver = this.#bySender.get(from);
    if (byReceiver === undefined) {
      byReceiver = new Map();
      this.#bySender.set(from, byReceiver);
    }
    let link = byReceiver.get(to);
    if (link === undefined) {
      link = new LinkState(`${from}>${to}`, this.#seed);
      byReceiver.set(to, link);
    }
    return link;
  }
}
