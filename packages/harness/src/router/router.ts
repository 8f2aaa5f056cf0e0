import { type ActorId, getOrCreate, type Micros } from "@kcsim/protocol";
import { sampleDelay, uniformDelay } from "./delay.js";
import type { ChoiceKind, DelaySpec, FaultChoice, FaultPlan, MessageFault, PartitionFault } from "./fault-plan.js";
import { type LinkState, LinkTable } from "./link-state.js";
import { OrphanedSockets } from "./orphaned-sockets.js";
import { RetransmissionStalls, type StalledHead } from "./retransmission-stalls.js";
import { safeLookahead } from "./safe-lookahead.js";
import { NameMatcher } from "./selector.js";
import { LAST_SYN_US, LAST_SYNACK_US, RTO_MIN_US, retransmissionThrough, TIMEOUT_INIT_US } from "./tcp-retransmission.js";

/**
 * deliver: it arrives (at `at`); drop: lost on its own (datagram mode);
 * partitioned: a partition swallowed it (datagram mode), or held it past
 * any heal (connection mode); broken: its connection broke here or had
 * broken before (connection mode).
 */
export type Fate = "deliver" | "drop" | "partitioned" | "broken";

/** What the router decided for one message. Every decision is recorded in the history. */
export interface RouteDecision {
  readonly fate: Fate;
  /** Delivery times: one, or two when duplicated; empty when not delivered. */
  readonly at: readonly Micros[];
  /** The fault (or partition) that dropped, delayed, duplicated, reordered or corrupted it; null if none. */
  readonly fault: string | null;
  readonly corrupt: "truncate" | "garbage" | null;
  readonly reordered: boolean;
  /** Connection mode: a partition held it back until it healed (TCP retransmitted it then). */
  readonly held: boolean;
  /** Connection mode: this message broke its connection; when the client and the server notice. */
  readonly breakAt: readonly [client: Micros, server: Micros] | null;
}

export interface RouterStats {
  messages: number;
  delivered: number;
  dropped: number;
  partitioned: number;
  /** Connection mode: connections broken, and messages lost with them. */
  breaks: number;
  broken: number;
  /** Connection mode: messages a partition held back until it healed. */
  held: number;
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
 * Links are FIFO unless a reorder fault (datagram mode) lets a message
 * leave that order; every message takes at least the lookahead. In
 * connection mode (`routeOnConnection`) each connection is a TCP stream: a
 * loss breaks it, a partition holds its bytes back until the partition
 * heals (TCP retransmits them), and nothing is duplicated or reordered.
 * Every draw for a link comes from the link's own seeded stream.
 */
export class Router {
  readonly lookaheadUs: Micros;
  /**
   * The plan's safe lookahead (the sooner of its fastest delivery and its
   * fastest break notice): nothing a send causes arrives sooner, so it is
   * the length of a lockstep window, and it is how long a break takes to
   * reach the bytes in flight on its connection. Nothing in flight is lost
   * sooner than that after the break, so a delivery due inside the window
   * of the send that broke its connection arrives on every host, and a
   * later one is lost on every host.
   */
  readonly safeLookaheadUs: Micros;
  readonly stats: RouterStats = {
    messages: 0,
    delivered: 0,
    dropped: 0,
    partitioned: 0,
    breaks: 0,
    broken: 0,
    held: 0,
    duplicated: 0,
    reordered: 0,
    corrupted: 0,
    bytes: 0,
    byType: {},
    byFault: Object.create(null), // fault names are the user's: "__proto__" must count like any other
  };
  readonly #plan: FaultPlan;
  readonly #faults: CompiledFault[];
  readonly #partitions: CompiledPartition[];
  /** When the plan's last partition heals: after it no partition blocks anything. */
  readonly #lastHealUs: Micros;
  readonly #links: LinkTable;
  /** Connection mode: when each connection that broke did, by client and generation (looked up for every message). */
  readonly #brokenConnections = new Map<ActorId, Map<number, Micros>>();
  /** Connection mode: held bytes that a closed socket's kernel gives up on. */
  readonly #orphans = new OrphanedSockets();
  readonly #stalls = new RetransmissionStalls();
  /** The plan's pinned choices by `${link}#${n}#${fault}#${kind}`, or null: the seed decides. */
  readonly #pinned: ReadonlySet<string> | null;
  /** Every random fault decision that fired, in routing order (the run's choice list: what a shrinker reduces). */
  readonly fired: FaultChoice[] = [];

  constructor(plan: FaultPlan, seed: number) {
    this.#plan = plan;
    this.#links = new LinkTable(seed);
    this.#pinned = plan.choices === undefined ? null : new Set(plan.choices.map(choiceKey));
    this.lookaheadUs = Math.max(1, msToUs(plan.network.minLatencyMs));
    this.safeLookaheadUs = safeLookahead(plan, this.lookaheadUs);
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
    this.#lastHealUs = this.#partitions.reduce((last, p) => Math.max(last, p.endUs), 0);
  }

  get mode(): FaultPlan["network"]["mode"] {
    return this.#plan.network.mode;
  }

  /** Whether a partition blocks `from` -> `to` at `now`, and which. */
  blockedBy(now: Micros, from: ActorId, to: ActorId): string | null {
    return this.#blocking(now, from, to)?.spec.name ?? null;
  }

  #blocking(now: Micros, from: ActorId, to: ActorId): CompiledPartition | null {
    // Asked for every message and its acknowledgement, most of them after the last partition has healed.
    if (now >= this.#lastHealUs) return null;
    const partitions = this.#partitions;
    for (let i = 0; i < partitions.length; i++) {
      const p = partitions[i] as CompiledPartition;
      if (now < p.startUs || now >= p.endUs) continue;
      const ab = p.a.matches(from) && p.b.matches(to);
      const ba = p.b.matches(from) && p.a.matches(to);
      const direction = p.spec.direction;
      if ((direction !== "b-to-a" && ab) || (direction !== "a-to-b" && ba)) return p;
    }
    return null;
  }

  /** Datagram mode: the fate of one message on its own. `fromRank`: the sender's origin rank if the caller knows it (-1: not). */
  route(now: Micros, from: ActorId, to: ActorId, msgType: string, bytes: number, fromRank = -1): RouteDecision {
    this.#count(msgType, bytes);
    const stats = this.stats;
    const link = this.#links.get(from, to, fromRank);
    const n = link.next();
    let latency = Math.max(this.lookaheadUs, this.#delay(this.#plan.network.latency, link));
    const partition = this.blockedBy(now, from, to);
    if (partition !== null) {
      stats.partitioned++;
      this.#countFault(partition);
      return { fate: "partitioned", at: [], fault: partition, corrupt: null, reordered: false, held: false, breakAt: null };
    }

    let sendAt = now;
    let fault: string | null = null;
    let corrupt: "truncate" | "garbage" | null = null;
    let reordered = false;
    let duplicateAfter: Micros | null = null;
    for (const f of this.#faults) {
      if (now < f.startUs || now >= f.endUs || !f.from.matches(from) || !f.to.matches(to) || !f.types.matches(msgType)) continue;
      const spec = f.spec;
      if (spec.drop !== undefined && this.#decide(f, link, n, "drop", this.#drops(f, link))) {
        stats.dropped++;
        this.#countFault(spec.name);
        return { fate: "drop", at: [], fault: spec.name, corrupt: null, reordered: false, held: false, breakAt: null };
      }
      if (spec.corrupt !== undefined && this.#decide(f, link, n, "corrupt", link.random() < spec.corrupt.probability)) {
        corrupt = spec.corrupt.mode;
        fault = spec.name;
      }
      if (spec.delay !== undefined) {
        latency += this.#delay(spec.delay, link);
        fault = spec.name;
      }
      if (spec.bandwidth !== undefined) {
        sendAt = this.#transmit(f, link, sendAt, bytes);
        fault = spec.name;
      }
      if (spec.duplicate !== undefined && this.#decide(f, link, n, "duplicate", link.random() < spec.duplicate.probability)) {
        duplicateAfter = spec.duplicate.delay === undefined ? 0 : this.#delay(spec.duplicate.delay, link);
        fault = spec.name;
      }
      if (spec.reorder !== undefined && this.#decide(f, link, n, "reorder", link.random() < spec.reorder.probability)) {
        latency += this.#delay(spec.reorder.delay, link);
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
    return { fate: "deliver", at, fault, corrupt, reordered, held: false, breakAt: null };
  }

  /**
   * Connection mode: the fate of one message on the connection (client,
   * gen), in the direction from -> to. The connection is a TCP stream:
   * - a loss breaks it: this message and every later one on it are lost,
   *   and the client and the server each notice after a drawn delay;
   * - a partition holds the bytes back, and TCP's retransmission (RTO from
   *   200 ms, 1 s for the handshake, doubling up to 120 s: tcp-retransmission.ts)
   *   delivers them once it has healed; what the sender writes behind a held
   *   segment waits for that segment's retransmission and goes with it
   *   (RetransmissionStalls); unless
   *   their sender closed the connection meanwhile and that retransmission
   *   is later than a closed socket's kernel tries (OrphanedSockets);
   * - delays and bandwidth hold back the whole stream (head-of-line), and
   *   only that stream: another connection between the same two actors
   *   (the one a client opened after giving this one up) is not held back;
   * - a corrupted frame arrives damaged (its reader closes the connection).
   */
  routeOnConnection(
    now: Micros,
    from: ActorId,
    to: ActorId,
    msgType: string,
    bytes: number,
    client: ActorId,
    gen: number,
    fromRank = -1,
  ): RouteDecision {
    this.#count(msgType, bytes);
    const stats = this.stats;
    const wireId = from === client ? gen : -gen;
    // The sender's end closes (its FIN, or its reset when its process died): bytes it still holds, the FIN among
    // them, become an orphan's.
    if (msgType === "SimDisconnect") this.#orphans.closed(client, wireId, now);
    if (this.#brokeAt(client, gen) !== undefined) {
      stats.broken++;
      return { fate: "broken", at: [], fault: null, corrupt: null, reordered: false, held: false, breakAt: null };
    }
    const link = this.#links.get(from, to, fromRank);
    const n = link.next();
    let latency = Math.max(this.lookaheadUs, this.#delay(this.#plan.network.latency, link));
    let sendAt = now;
    let fault: string | null = null;
    let corrupt: "truncate" | "garbage" | null = null;
    let held = false;
    let retransmitAt = now;
    let firstSentAt = now;
    // A handshake segment backs off from TCP_TIMEOUT_INIT (1 s) and is retransmitted a few times only; anything
    // else backs off from TCP_RTO_MIN (200 ms) for as long as its socket is open.
    const lastTry = msgType === "SimConnect" ? LAST_SYN_US : msgType === "SimAccept" ? LAST_SYNACK_US : null;
    // Anything but a handshake segment (each the first of its stream) waits behind a segment TCP is still backing
    // off on: one retransmission timer per socket (RetransmissionStalls).
    const head = lastTry === null ? this.#stalls.waitingAt(client, wireId, now) : undefined;
    const partition = this.#blocking(now, from, to);
    if (partition !== null || head !== undefined) {
      const faultName = partition?.spec.name ?? (head as StalledHead).fault;
      this.#countFault(faultName);
      // A retransmission that a partition blocks when it goes out is lost like the first send, whichever partition
      // it is (one that began after the first one healed too): the segment arrives with the first that is not.
      const getsThrough = (t: Micros) => this.#blocking(t, from, to) === null;
      let retry: Micros;
      if (head === undefined) {
        retry = retransmissionThrough(now, now, getsThrough, this.#lastHealUs, lastTry === null ? RTO_MIN_US : TIMEOUT_INIT_US);
        if (lastTry === null) this.#stalls.stalled(client, wireId, { sentAt: now, holdsFrom: now, resumeAt: retry, fault: faultName });
      } else {
        // It goes out when the head's acknowledgement comes, unless a partition blocks it then: from there it is the
        // head, backing off on the socket's timer.
        retry = getsThrough(head.resumeAt)
          ? head.resumeAt
          : retransmissionThrough(head.resumeAt, head.resumeAt, getsThrough, this.#lastHealUs);
        if (retry > head.resumeAt)
          this.#stalls.stalled(client, wireId, { sentAt: head.sentAt, holdsFrom: head.holdsFrom, resumeAt: retry, fault: faultName });
      }
      // Never healed, or healed only after a handshake segment's last try: it never arrives (nor does anything behind it).
      if (!Number.isFinite(retry) || (lastTry !== null && retry - now > lastTry)) {
        stats.partitioned++;
        return { fate: "partitioned", at: [], fault: faultName, corrupt: null, reordered: false, held: false, breakAt: null };
      }
      retransmitAt = sendAt = retry;
      firstSentAt = head?.sentAt ?? now;
      fault = faultName;
      held = true;
      stats.held++;
    }
    // The kernel's own segments (SYN, SYN-ACK, FIN/RST) are retransmitted by TCP, never what breaks a connection.
    const segment = msgType === "SimConnect" || msgType === "SimAccept" || msgType === "SimDisconnect";
    for (const f of this.#faults) {
      if (now < f.startUs || now >= f.endUs || !f.from.matches(from) || !f.to.matches(to) || !f.types.matches(msgType)) continue;
      const spec = f.spec;
      if (!segment && spec.drop !== undefined && this.#decide(f, link, n, "drop", this.#drops(f, link))) {
        getOrCreate(this.#brokenConnections, client, () => new Map<number, Micros>()).set(gen, now);
        stats.breaks++;
        stats.broken++;
        this.#countFault(spec.name);
        const detect = this.#plan.network.breakDetection;
        const clientSees = now + Math.max(this.lookaheadUs, this.#delay(detect, link));
        const serverSees = now + Math.max(this.lookaheadUs, this.#delay(detect, link));
        const breakAt: [Micros, Micros] = [clientSees, serverSees];
        return { fate: "broken", at: [], fault: spec.name, corrupt: null, reordered: false, held: false, breakAt };
      }
      if (spec.duplicate !== undefined || spec.reorder !== undefined)
        throw new Error(
          `fault ${spec.name}: duplicate and reorder need the datagram network (a connection delivers each byte once, in order)`,
        );
      if (!segment && spec.corrupt !== undefined && this.#decide(f, link, n, "corrupt", link.random() < spec.corrupt.probability)) {
        corrupt = spec.corrupt.mode;
        fault = spec.name;
      }
      if (spec.delay !== undefined) {
        latency += this.#delay(spec.delay, link);
        fault = spec.name;
      }
      if (spec.bandwidth !== undefined) {
        // Held bytes cross the link when TCP retransmits them: they do not take the link's bandwidth from now until then.
        sendAt = this.#transmit(f, link, sendAt, bytes, !held);
        fault = spec.name;
      }
    }
    // FIFO on this connection in this direction, whatever other connections between the two actors carry.
    const due = link.dueOnConnection(wireId, sendAt + latency);
    if (lastTry === null) this.#awaitAcknowledgement(client, wireId, from, to, now, retransmitAt, due, held);
    if (held) {
      if (msgType === "SimConnect") this.#orphans.heldSyn(client, gen, retransmitAt, due);
      else this.#orphans.held(client, wireId, firstSentAt, retransmitAt, due);
    }
    if (corrupt !== null) stats.corrupted++;
    if (fault !== null) this.#countFault(fault);
    stats.delivered++;
    return { fate: "deliver", at: [due], fault, corrupt, reordered: false, held, breakAt: null };
  }

  /**
   * Connection mode: the receiver acknowledges a segment when it arrives (at `due`). A partition that holds that
   * acknowledgement back leaves the segment unacknowledged at its sender, which cannot tell it from a lost one: TCP
   * retransmits it from its first timeout on, one segment at a time, and what the application writes from that
   * timeout waits in the socket until a retransmission gets through and is acknowledged (RetransmissionStalls). A
   * request whose answer a one-way cut holds thus holds back the requests written after it, as on a real socket.
   * Inside the first timeout of a head that is still unacknowledged the window lets the segment out, and the head's
   * acknowledgement covers it. A segment held itself extends its head's stall when its acknowledgement is held in
   * turn. (The acknowledgement a data segment of the receiver's would carry is not looked for: the receiver's own
   * held bytes back off on their own timer, from about the same moment.)
   */
  #awaitAcknowledgement(
    client: ActorId,
    wireId: number,
    from: ActorId,
    to: ActorId,
    now: Micros,
    transmittedAt: Micros,
    due: Micros,
    held: boolean,
  ): void {
    const ackBlockedBy = this.#blocking(due, to, from);
    if (ackBlockedBy === null) return;
    const head = this.#stalls.unacknowledgedAt(client, wireId, now);
    if (head !== undefined && !held && due < head.resumeAt) return;
    // A segment held itself extends the stall of the head it went with; any other starts a stall of its own.
    const extended = held ? head : undefined;
    const backoffFrom = extended?.sentAt ?? now;
    const resumeAt = retransmissionThrough(
      backoffFrom,
      transmittedAt,
      (t) => this.#blocking(t, from, to) === null && this.#blocking(t, to, from) === null,
      this.#lastHealUs,
    );
    const holdsFrom = extended?.holdsFrom ?? now + RTO_MIN_US;
    if (resumeAt <= holdsFrom) return; // acknowledged at the first retransmission, before the window closed
    this.#stalls.stalled(client, wireId, { sentAt: backoffFrom, holdsFrom, resumeAt, fault: ackBlockedBy.spec.name });
  }

  /**
   * A random fault decision for message `n` of `link`: what the seed drew
   * (`drawn`, already drawn, so the message's later draws stay where they
   * are whatever is decided), or, with pinned choices, whether this one is
   * pinned. Records it when it fires.
   */
  #decide(f: CompiledFault, link: LinkState, n: number, kind: ChoiceKind, drawn: boolean): boolean {
    const choice: FaultChoice = { link: link.name, n, fault: f.spec.name, kind };
    const fires = this.#pinned === null ? drawn : this.#pinned.has(choiceKey(choice));
    if (fires) this.fired.push(choice);
    return fires;
  }

  /**
   * Whether a delivery on connection (client, gen) due at `due` is lost with
   * it: bytes still in flight when a connection breaks never arrive once the
   * break has propagated (safeLookaheadUs after it, so every host learns
   * of the break before such a delivery is handed out: a lockstep host
   * decides a break only when the window of its send is over).
   */
  lostWithBreak(client: ActorId, gen: number, due: Micros): boolean {
    const brokeAt = this.#brokeAt(client, gen);
    return brokeAt !== undefined && due >= brokeAt + this.safeLookaheadUs;
  }

  /**
   * Whether a delivery on the connection (client, |wireId|), in the direction of `wireId` (+gen: from the client),
   * due at `due`, is lost because its sender had closed the connection and its kernel gave up retransmitting
   * (see OrphanedSockets); decided safeLookaheadUs after the close at the earliest, as lostWithBreak is.
   */
  lostAsOrphan(client: ActorId, wireId: number, due: Micros): boolean {
    return this.#orphans.lost(client, wireId, due, this.safeLookaheadUs);
  }

  #brokeAt(client: ActorId, gen: number): Micros | undefined {
    const broken = this.#brokenConnections;
    return broken.size === 0 ? undefined : broken.get(client)?.get(gen);
  }

  #count(msgType: string, bytes: number): void {
    const stats = this.stats;
    stats.messages++;
    stats.bytes += bytes;
    // Stored only when new: a keyed store into the by-type table on every message is a megamorphic store.
    let perType = stats.byType[msgType];
    if (perType === undefined) {
      perType = { count: 0, bytes: 0 };
      stats.byType[msgType] = perType;
    }
    perType.count++;
    perType.bytes += bytes;
  }

  /**
   * Serialises the message on the link at the fault's rate: when its last byte is on the wire, after what the
   * link carries before it. `reserve` false: it does not hold the link up for what comes after it (bytes a
   * partition holds back, retransmitted long after messages sent later on other connections have crossed).
   */
  #transmit(f: CompiledFault, link: LinkState, sendAt: Micros, bytes: number, reserve = true): Micros {
    const bandwidth = f.spec.bandwidth;
    if (bandwidth === undefined) return sendAt;
    const transmit = Math.ceil((bytes * 1_000_000) / bandwidth.bytesPerSecond);
    const start = Math.max(sendAt, link.busyUntil[f.index] ?? 0);
    if (reserve) link.busyUntil[f.index] = start + transmit;
    return start + transmit;
  }

  #delay(spec: DelaySpec, link: LinkState): Micros {
    // The default network's uniform latency is drawn for every message: through the link's method, not its closure.
    if (spec.dist === "uniform") return uniformDelay(spec, link.draw());
    return spec.dist === "fixed" ? msToUs(spec.ms) : sampleDelay(spec, link.random);
  }

  #drops(f: CompiledFault, link: LinkState): boolean {
    const drop = f.spec.drop;
    if (drop === undefined) return false;
    if ("probability" in drop) return link.random() < drop.probability;
    const ge = drop.gilbertElliott;
    // Advance the chain, then lose the message with the new state's loss rate.
    let bad = link.burstBad[f.index] ?? false;
    bad = bad ? !(link.random() < ge.pBadToGood) : link.random() < ge.pGoodToBad;
    link.burstBad[f.index] = bad;
    return link.random() < (bad ? ge.lossInBad : ge.lossInGood);
  }

  #countFault(name: string): void {
    this.stats.byFault[name] = (this.stats.byFault[name] ?? 0) + 1;
  }
}

function choiceKey(choice: FaultChoice): string {
  return `${choice.link}#${choice.n}#${choice.fault}#${choice.kind}`;
}

/** Applies a corruption decision to a frame (a copy; the original is untouched). */
export function corruptFrame(frame: Uint8Array, mode: "truncate" | "garbage"): Uint8Array {
  if (mode === "truncate") return frame.slice(0, Math.max(0, Math.floor(frame.length / 2)));
  // 0xc1 is "never used" in msgpack: no decoder can read it as a value.
  return new Uint8Array(Math.max(1, frame.length)).fill(0xc1);
}
