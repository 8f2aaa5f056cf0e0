import type { ActorId, Micros, RandomStream } from "@kcsim/protocol";
import { sampleDelay } from "./delay.js";
import type { DelaySpec, FaultPlan, MessageFault, PartitionFault } from "./fault-plan.js";
import { type LinkState, LinkTable } from "./link-state.js";
import { NameMatcher } from "./selector.js";

export type Fate = "deliver" | "drop" | "partitioned";

/** What the router decided for one message. Every decision is recorded in the history. */
export interface RouteDecision {
  readonly fate: Fate;
  /** Delivery times: one, or two when duplicated; empty when not delivered. */
  readonly at: readonly Micros[];
  /** The fault (or partition) that dropped, delayed, duplicated, reordered or corrupted it; null if none. */
  readonly fault: string | null;
  readonly corrupt: "truncate" | "garbage" | null;
  readonly reordered: boolean;
}

export interface RouterStats {
  messages: number;
  delivered: number;
  dropped: number;
  partitioned: number;
  duplicated: number;
  reordered: number;
  corrupted: number;
  bytes: number;
  byType: Record<string, { count: number; bytes: number }>;
  byFault: Record<string, number>;
}

interface CompiledFault {
  /** Its index in the plan: where links keep their state for it. */
  readonly index: number;
  readonly spec: MessageFault;
  readonly from: NameMatcher;
  readonly to: NameMatcher;
  readonly types: NameMatcher;
  readonly startUs: Micros;
  readonly endUs: Micros;
}

interface CompiledPartition {
  readonly spec: PartitionFault;
  readonly a: NameMatcher;
  readonly b: NameMatcher;
  readonly startUs: Micros;
  readonly endUs: Micros;
}

const msToUs = (ms: number): Micros => Math.round(ms * 1000);

/**
 * The one scheduler of message traffic and the only place where message
 * faults are applied. It is pure given its random stream: the hosts call
 * `route` for every send in the total order, so a fault plan and a seed
 * mean the same decisions in every host.
 *
 * Links are FIFO (a TCP connection per pair) unless a reorder fault lets a
 * message leave that order; every message takes at least the lookahead.
 */
export class Router {
  readonly lookaheadUs: Micros;
  readonly stats: RouterStats = {
    messages: 0,
    delivered: 0,
    dropped: 0,
    partitioned: 0,
    duplicated: 0,
    reordered: 0,
    corrupted: 0,
    bytes: 0,
    byType: {},
    byFault: Object.create(null), // fault names are the user's: "__proto__" must count like any other
  };
  readonly #plan: FaultPlan;
  readonly #random: () => number;
  readonly #faults: CompiledFault[];
  readonly #partitions: CompiledPartition[];
  readonly #links = new LinkTable();

  constructor(plan: FaultPlan, random: RandomStream) {
    this.#plan = plan;
    this.#random = random.next;
    this.lookaheadUs = Math.max(1, msToUs(plan.network.minLatencyMs));
    this.#faults = plan.messageFaults.map((spec, index) => ({
      index,
      spec,
      from: new NameMatcher(spec.from),
      to: new NameMatcher(spec.to),
      types: new NameMatcher(spec.types),
      startUs: spec.startMs === undefined ? 0 : msToUs(spec.startMs),
      endUs: spec.endMs === undefined ? Number.POSITIVE_INFINITY : msToUs(spec.endMs),
    }));
    this.#partitions = plan.partitions.map((spec) => ({
      spec,
      a: new NameMatcher(spec.a),
      b: new NameMatcher(spec.b),
      startUs: msToUs(spec.startMs),
      endUs: msToUs(spec.endMs),
    }));
  }

  /** Whether a partition blocks `from` -> `to` at `now`, and which. */
  blockedBy(now: Micros, from: ActorId, to: ActorId): string | null {
    for (const p of this.#partitions) {
      if (now < p.startUs || now >= p.endUs) continue;
      const ab = p.a.matches(from) && p.b.matches(to);
      const ba = p.b.matches(from) && p.a.matches(to);
      const direction = p.spec.direction;
      if ((direction !== "b-to-a" && ab) || (direction !== "a-to-b" && ba)) return p.spec.name;
    }
    return null;
  }

  route(now: Micros, from: ActorId, to: ActorId, msgType: string, bytes: number): RouteDecision {
    const stats = this.stats;
    stats.messages++;
    stats.bytes += bytes;
    const perType = stats.byType[msgType] ?? { count: 0, bytes: 0 };
    perType.count++;
    perType.bytes += bytes;
    stats.byType[msgType] = perType;

    let latency = Math.max(this.lookaheadUs, this.#delay(this.#plan.network.latency));
    const partition = this.blockedBy(now, from, to);
    if (partition !== null) {
      stats.partitioned++;
      this.#countFault(partition);
      return { fate: "partitioned", at: [], fault: partition, corrupt: null, reordered: false };
    }

    const link = this.#links.get(from, to);
    let sendAt = now;
    let fault: string | null = null;
    let corrupt: "truncate" | "garbage" | null = null;
    let reordered = false;
    let duplicateAfter: Micros | null = null;
    for (const f of this.#faults) {
      if (now < f.startUs || now >= f.endUs || !f.from.matches(from) || !f.to.matches(to) || !f.types.matches(msgType)) continue;
      const spec = f.spec;
      if (spec.drop !== undefined && this.#drops(f, link)) {
        stats.dropped++;
        this.#countFault(spec.name);
        return { fate: "drop", at: [], fault: spec.name, corrupt: null, reordered: false };
      }
      if (spec.corrupt !== undefined && this.#random() < spec.corrupt.probability) {
        corrupt = spec.corrupt.mode;
        fault = spec.name;
      }
      if (spec.delay !== undefined) {
        latency += this.#delay(spec.delay);
        fault = spec.name;
      }
      if (spec.bandwidth !== undefined) {
        const transmit = Math.ceil((bytes * 1_000_000) / spec.bandwidth.bytesPerSecond);
        const start = Math.max(sendAt, link.busyUntil[f.index] ?? 0);
        link.busyUntil[f.index] = start + transmit;
        sendAt = start + transmit;
        fault = spec.name;
      }
      if (spec.duplicate !== undefined && this.#random() < spec.duplicate.probability) {
        duplicateAfter = spec.duplicate.delay === undefined ? 0 : this.#delay(spec.duplicate.delay);
        fault = spec.name;
      }
      if (spec.reorder !== undefined && this.#random() < spec.reorder.probability) {
        latency += this.#delay(spec.reorder.delay);
        reordered = true;
        fault = spec.name;
      }
    }

    let due = sendAt + latency;
    if (!reordered) {
      due = Math.max(due, link.lastDue);
      link.lastDue = due;
    }
    const at: Micros[] = [due];
    if (duplicateAfter !== null) {
      const second = due + duplicateAfter;
      at.push(second);
      if (!reordered) link.lastDue = Math.max(second, link.lastDue);
      stats.duplicated++;
    }
    if (reordered) stats.reordered++;
    if (corrupt !== null) stats.corrupted++;
    if (fault !== null) this.#countFault(fault);
    stats.delivered++;
    return { fate: "deliver", at, fault, corrupt, reordered };
  }

  #delay(spec: DelaySpec): Micros {
    return spec.dist === "fixed" ? msToUs(spec.ms) : sampleDelay(spec, this.#random);
  }

  #drops(f: CompiledFault, link: LinkState): boolean {
    const drop = f.spec.drop;
    if (drop === undefined) return false;
    if ("probability" in drop) return this.#random() < drop.probability;
    const ge = drop.gilbertElliott;
    // Advance the chain, then lose the message with the new state's loss rate.
    let bad = link.burstBad[f.index] ?? false;
    bad = bad ? !(this.#random() < ge.pBadToGood) : this.#random() < ge.pGoodToBad;
    link.burstBad[f.index] = bad;
    return this.#random() < (bad ? ge.lossInBad : ge.lossInGood);
  }

  #countFault(name: string): void {
    this.stats.byFault[name] = (this.stats.byFault[name] ?? 0) + 1;
  }
}

/** Applies a corruption decision to a frame (a copy; the original is untouched). */
export function corruptFrame(frame: Uint8Array, mode: "truncate" | "garbage"): Uint8Array {
  if (mode === "truncate") return frame.slice(0, Math.max(0, Math.floor(frame.length / 2)));
  // 0xc1 is "never used" in msgpack: no decoder can read it as a value.
  return new Uint8Array(Math.max(1, frame.length)).fill(0xc1);
}
