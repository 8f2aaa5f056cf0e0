import { type ActorId, type Micros, type RandomStream, streamFor } from "@kcsim/protocol";

/**
 * What the router remembers about one directed link (sender -> receiver):
 * the latest delivery time it promised (links are FIFO) and, per message
 * fault (by its index in the plan), the Gilbert-Elliott state and the
 * bandwidth busy-until time. One object per link, found through two maps
 * of interned actor ids, instead of a "from\0to" key built for every message.
 */
export class LinkState {
  lastDue: Micros = 0;
  /**
   * The link's own random stream: every draw for its messages (latency,
   * faults) comes from it, so what happens on one link never shifts the
   * draws of another (a shrinker can change one link's traffic and keep the
   * rest of the schedule).
   */
  readonly random: () => number;
  /** Per fault index: Gilbert-Elliott state (true = bad); absent = good. */
  readonly burstBad: boolean[] = [];
  /** Per fault index: when the link's bandwidth is free again; absent = 0. */
  readonly busyUntil: Micros[] = [];

  constructor(stream: RandomStream) {
    this.random = stream.next;
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
      link = new LinkState(streamFor(this.#seed, `!link:${from}>${to}`));
      byReceiver.set(to, link);
    }
    return link;
  }
}
