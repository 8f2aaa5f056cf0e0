import type { Micros } from "@kcsim/protocol";
import type { ConnectionRecord, HistoryEvent } from "../history/history-event.js";
import type { MemberDirectory } from "./member-directory.js";
import type { ChainEvent, CheckView, ConnectionTimeline, Explanation, MemberTimeline, OwnershipRow } from "./report-data.js";
import { formatSeconds } from "./time-format.js";
import { actorOfEvent } from "./violation-views.js";

/** How far back a chain may reach before its violation. */
const MAX_LOOKBACK_US: Micros = 180_000_000;
/** The window of a violation that names no member. */
const DEFAULT_LOOKBACK_US: Micros = 5_000_000;
/** Events a chain keeps at most (the latest, nearest the violation). */
export const MAX_CHAIN_EVENTS = 400;
/** Characters of message payloads a report holds at most, over all chains. */
const PAYLOAD_BUDGET = 1_500_000;
/** How much of an event's JSON a chain row shows. */
const DETAIL_LIMIT = 400;

/** Observations that repeat on every poll or fetch: noise in a chain, unless they touch its partitions. */
const NOISE = new Set(["member.poll", "fetch.round", "broker.hw", "broker.append", "broker.fetch-session", "producer.ack", "member.batch"]);
/** Noise unless about one of the chain's partitions. */
const PARTITION_NOISE = new Set(["member.records", "gc.offset-commit"]);

/** The margin a chain's window adds each side of [fromUs, tUs]. */
const marginOf = (fromUs: Micros, tUs: Micros): Micros => Math.max(Math.max(tUs - fromUs, 1000) * 0.05, 200_000);

/** What the chains need to know of the run's connections. */
export interface ChainConnections {
  /** Each client's connection trouble and outages. */
  readonly timelines: readonly ConnectionTimeline[];
  /** The name of the connection a client opened as generation `gen` (a break's line does not carry it). */
  nameOf(client: string, gen: number): string | null;
}

const NO_CONNECTIONS: ChainConnections = { timelines: [], nameOf: () => null };

/** A connection event that is trouble (a break, reset, close or connect timeout): a chain keeps these however long it is. */
const isConnectionTrouble = (e: ChainEvent) => e.kind === "conn" && e.connection?.what !== "connect" && e.connection?.what !== "ready";

/** A violation's chain as planned after the first pass: who, which partitions, and when. */
interface ChainPlan {
  readonly number: number;
  readonly check: string;
  readonly tUs: Micros;
  readonly message: string;
  readonly members: readonly string[];
  readonly partitions: readonly string[];
  readonly fromUs: Micros;
  readonly toUs: Micros;
  readonly events: ChainEvent[];
  dropped: number;
  /** Actors that appear in the chain (members first; coordinators as their events show up). */
  readonly actors: string[];
}

const wordsOf = (text: string) => new Set(text.split(/[^A-Za-z0-9._:-]+/).filter((w) => w !== ""));

/** The member ids and partitions an observation is about. */
function aboutOf(o: Record<string, unknown>): { memberId: string | null; partitions: string[] } {
  const memberId = typeof o.memberId === "string" ? o.memberId : null;
  const partitions: string[] = [];
  if (typeof o.topic === "string" && typeof o.partition === "number") partitions.push(`${o.topic}-${o.partition}`);
  // A commit's partitions, topic by topic.
  if (Array.isArray(o.topics))
    for (const entry of o.topics as unknown[]) {
      const { topic, partitions: numbers } = (entry ?? {}) as { topic?: unknown; partitions?: unknown };
      if (typeof topic === "string" && Array.isArray(numbers))
        for (const partition of numbers as unknown[]) if (typeof partition === "number") partitions.push(`${topic}-${partition}`);
    }
  // A poll's records: a range per partition.
  if (Array.isArray(o.ranges))
    for (const range of o.ranges as unknown[]) {
      const { topic, partition } = (range ?? {}) as { topic?: unknown; partition?: unknown };
      if (typeof topic === "string" && typeof partition === "number") partitions.push(`${topic}-${partition}`);
    }
  return { memberId, partitions };
}

/** A connection event in a few words: `connection "coordinator" member-1 → coordinator-0: reset (broken)`. */
export function connectionEventLabel(event: ConnectionRecord, name: string | null = null): string {
  const connection = name ?? event.connection ?? "";
  const which = `connection${connection === "" ? "" : ` "${connection}"`} ${event.actor} → ${event.peer}`;
  if (event.what === "break") {
    const noticed =
      event.at === undefined
        ? ""
        : ` (${event.actor} noticed at ${formatSeconds(event.at[0])}, ${event.peer} at ${formatSeconds(event.at[1])})`;
    return `${which} broken by ${event.reason ?? "a fault"}${noticed}`;
  }
  return `${which}: ${event.what}${event.reason === null || event.reason === undefined ? "" : ` (${event.reason})`}`;
}

/** An event in a few words: what a chain row and a tooltip say. `nameOf` names the connection of a break. */
export function eventSummary(
  event: HistoryEvent,
  nameOf: ChainConnections["nameOf"] = NO_CONNECTIONS.nameOf,
): { kind: ChainEvent["kind"]; label: string; detail: string } {
  const cut = (text: string) => (text.length > DETAIL_LIMIT ? `${text.slice(0, DETAIL_LIMIT)}...` : text);
  switch (event.ev) {
    case "send": {
      const fate = event.fate === "deliver" ? "delivered" : event.fate === "drop" ? "dropped" : event.fate;
      const how = event.fault === undefined ? "" : ` by ${event.fault}`;
      return { kind: "send", label: `${event.type} ${event.from} → ${event.to}: ${fate}${how}`, detail: cut(JSON.stringify(event)) };
    }
    case "obs": {
      const { type, groupId: _g, memberId: _m, ...rest } = event.o as Record<string, unknown> & { type: string };
      return { kind: "obs", label: type, detail: cut(JSON.stringify(rest)) };
    }
    case "life":
      return { kind: "life", label: `process ${event.what}${event.detail === null ? "" : ` (${event.detail})`}`, detail: "" };
    case "error":
      return { kind: "error", label: `threw during ${event.during}`, detail: cut(event.message) };
    case "reject":
      return { kind: "reject", label: `rejected a frame from ${event.from}: ${event.reason}`, detail: cut(event.detail) };
    case "lost":
      return { kind: "lost", label: `lost ${event.type} from ${event.from}: ${event.why}`, detail: "" };
    case "conn":
      return { kind: "conn", label: connectionEventLabel(event, nameOf(event.actor, event.gen)), detail: `generation ${event.gen}` };
  }
}

/**
 * The causal chain behind each violation: the actors and partitions it
 * names, a window from where the involved members' trouble began (the
 * start of the unsettled run of client states they were in, e.g. a
 * reconciliation that waited a minute on its commit) to just after the
 * violation, and every event in that window of those members, of the
 * coordinator of their group (its targets, epochs and what it held for
 * them) and of the messages between them, with their fates.
 *
 * Two passes over the history: `observe` learns which coordinator runs
 * which group, `plan` sets each window from the extracted timelines, and
 * `collect` keeps each window's events.
 */
export class CausalChains {
  /** groupId -> the coordinator actor that reported it (gc.group). */
  readonly #coordinatorOf = new Map<string, string>();
  #plans: ChainPlan[] = [];
  #directory: MemberDirectory | null = null;
  #connections: ChainConnections = NO_CONNECTIONS;

  /** First pass. */
  observe(event: HistoryEvent): void {
    if (event.ev === "obs" && event.o.type === "gc.group" && typeof event.o.groupId === "string")
      this.#coordinatorOf.set(event.o.groupId, event.actor);
  }

  /** Between the passes: a window per violation. `endUs`: the run's end. */
  plan(
    checks: readonly CheckView[] | null,
    members: readonly MemberTimeline[],
    ownership: readonly OwnershipRow[],
    directory: MemberDirectory,
    endUs: Micros,
    connections: ChainConnections = NO_CONNECTIONS,
  ): void {
    this.#directory = directory;
    this.#connections = connections;
    const memberIds = new Set(members.map((m) => m.actor));
    const partitionKeys = new Set(ownership.map((r) => `${r.topic}-${r.partition}`));
    this.#plans = [];
    for (const check of checks ?? []) {
      for (const v of check.violations) {
        const words = wordsOf(v.message);
        const named = new Set<string>();
        for (const event of v.events) if (event.actor !== null && memberIds.has(event.actor)) named.add(event.actor);
        for (const word of words) {
          if (memberIds.has(word)) named.add(word);
          const byId = directory.actorOf(word);
          if (byId !== null) named.add(byId);
        }
        const involved = members.filter((m) => named.has(m.actor));
        const partitions = [...words].filter((w) => partitionKeys.has(w));
        // From where the members' trouble began; a violation whose members were settled all along looks back a little.
        const starts = involved.map((member) => troubleStart(member, v.tUs)).filter((t): t is Micros => t !== null);
        let fromUs = starts.length === 0 ? v.tUs - DEFAULT_LOOKBACK_US : Math.min(v.tUs, ...starts);
        // A connection of theirs that was down as the trouble began is part of it: from its break, reset or timeout.
        const clients = connections.timelines.filter((c) => named.has(c.actor));
        fromUs = outageStart(clients, fromUs, marginOf(fromUs, v.tUs));
        fromUs = Math.max(0, fromUs, v.tUs - MAX_LOOKBACK_US);
        const pad = marginOf(fromUs, v.tUs);
        this.#plans.push({
          number: v.number,
          check: check.name,
          tUs: v.tUs,
          message: v.message,
          members: involved.map((m) => m.actor),
          partitions,
          fromUs: Math.max(0, fromUs - pad),
          toUs: Math.min(endUs, v.tUs + pad),
          events: [],
          dropped: 0,
          actors: involved.map((m) => m.actor),
        });
      }
    }
  }

  /** Whether the second pass is needed at all. */
  get planned(): boolean {
    return this.#plans.length > 0;
  }

  /** The latest window end: how far a re-run must go to see every chain. */
  get horizonUs(): Micros {
    return Math.max(0, ...this.#plans.map((p) => p.toUs));
  }

  /** Second pass: `index` counts the history's events as checkers do (the header excluded). */
  collect(event: HistoryEvent, index: number): void {
    for (const plan of this.#plans) {
      if (event.t < plan.fromUs || event.t > plan.toUs) continue;
      const actor = this.#involves(plan, event);
      if (actor === null) continue;
      if (!plan.actors.includes(actor)) plan.actors.push(actor);
      const summary = eventSummary(event, this.#connections.nameOf);
      const row: ChainEvent = {
        index,
        tUs: event.t,
        actor,
        ...summary,
        ...(event.ev === "send" ? { to: event.to, fate: event.fate, arrivals: [...event.at], msgType: event.type } : {}),
        ...(event.ev === "conn"
          ? {
              connection: {
                what: event.what,
                peer: event.peer,
                noticedUs: event.at === undefined ? null : ([event.at[0], event.at[1]] as const),
              },
            }
          : {}),
        payload: null,
      };
      plan.events.push(row);
      if (plan.events.length > MAX_CHAIN_EVENTS) {
        // The oldest event goes, unless it is connection trouble (often the cause): then the oldest other one.
        const oldest = plan.events.findIndex((e) => !isConnectionTrouble(e));
        plan.events.splice(Math.max(oldest, 0), 1);
        plan.dropped++;
      }
    }
  }

  /** The sends the chains show, by history index (their payloads are worth fetching), with what the history says of each. */
  sends(): Map<number, { from: string; to: string; type: string; tUs: Micros }> {
    const out = new Map<number, { from: string; to: string; type: string; tUs: Micros }>();
    for (const plan of this.#plans)
      for (const e of plan.events)
        if (e.kind === "send" && e.to !== undefined && e.msgType !== undefined)
          out.set(e.index, { from: e.actor, to: e.to, type: e.msgType, tUs: e.tUs });
    return out;
  }

  /** Each chain's actors and window: whose log lines are worth fetching, and when. */
  logWindows(): { actors: readonly string[]; fromUs: Micros; toUs: Micros }[] {
    return this.#plans.map((p) => ({ actors: p.members, fromUs: p.fromUs, toUs: p.toUs }));
  }

  finish(enrich: ChainEnrichment | null): Explanation[] {
    // Payloads are the bulk of a report: past the budget, the later chains list their messages without them.
    let budget = PAYLOAD_BUDGET;
    return this.#plans.map((plan) => {
      const events = plan.events.map((e) => {
        const payload = e.kind === "send" && enrich !== null ? (enrich.payloads.get(e.index) ?? null) : null;
        if (payload === null || payload.length > budget) return e;
        budget -= payload.length;
        return { ...e, payload };
      });
      const logs =
        enrich === null ? [] : enrich.logs.filter((l) => plan.members.includes(l.actor) && l.tUs >= plan.fromUs && l.tUs <= plan.toUs);
      return {
        number: plan.number,
        check: plan.check,
        tUs: plan.tUs,
        message: plan.message,
        fromUs: plan.fromUs,
        toUs: plan.toUs,
        members: plan.members,
        partitions: plan.partitions,
        actors: plan.actors,
        events,
        earlierEventsLeftOut: plan.dropped,
        logs,
        enrichment: enrich === null ? "no re-run: payloads and log lines need the run's spec and a deterministic host" : enrich.note,
      };
    });
  }

  /** The actor a history event belongs to in this chain, or null when it is not part of it. */
  #involves(plan: ChainPlan, event: HistoryEvent): string | null {
    const members = plan.members;
    if (event.ev === "send") {
      const from = members.includes(event.from) || this.#isCoordinatorFor(plan, event.from);
      const to = members.includes(event.to) || this.#isCoordinatorFor(plan, event.to);
      return from && to && (members.includes(event.from) || members.includes(event.to)) ? event.from : null;
    }
    const actor = actorOfEvent(event);
    if (event.ev !== "obs") return members.includes(actor) ? actor : null;
    const o = event.o as Record<string, unknown> & { type: string };
    if (NOISE.has(o.type)) return null;
    const { memberId, partitions } = aboutOf(o);
    if (PARTITION_NOISE.has(o.type) && !partitions.some((p) => plan.partitions.includes(p))) return null;
    if (members.includes(actor)) return actor;
    if (!this.#isCoordinatorFor(plan, actor)) return null;
    if (o.type === "gc.group" || o.type === "gc.target") return actor;
    const about = memberId === null ? null : (this.#directory?.actorOf(memberId) ?? null);
    return about !== null && members.includes(about) ? actor : null;
  }

  #isCoordinatorFor(plan: ChainPlan, actor: string): boolean {
    for (const member of plan.members) {
      const group = this.#directory?.groupOf(member);
      if (group !== null && group !== undefined && this.#coordinatorOf.get(group) === actor) return true;
    }
    return false;
  }
}

/** What a re-run of the simulation adds to the chains: message payloads and the members' log lines. */
export interface ChainEnrichment {
  readonly payloads: ReadonlyMap<number, string>;
  readonly logs: Explanation["logs"];
  /** How the re-run went, in words (shown in the panel). */
  readonly note: string;
}

/**
 * Moves a chain's start `fromUs` back to the start of any outage of the
 * involved clients' connections that was under way then (or ended less
 * than `slackUs` before it), repeatedly, so that the break, reset or timeout
 * behind the trouble is in the window. A connection that was never ready
 * again may just have gone unused: its outage counts only if it began
 * shortly before.
 */
export function outageStart(timelines: readonly ConnectionTimeline[], fromUs: Micros, slackUs: Micros): Micros {
  let start = fromUs;
  for (let moved = true; moved; ) {
    moved = false;
    for (const c of timelines)
      for (const o of c.outages)
        if (o.fromUs < start && o.toUs >= start - slackUs && (o.reconnected || start - o.fromUs <= DEFAULT_LOOKBACK_US)) {
          start = o.fromUs;
          moved = true;
        }
  }
  return start;
}

/**
 * Where a member's trouble began before `tUs`: the start of the unbroken run
 * of unsettled client states (anything but STABLE) it was in at `tUs`, or,
 * if it was STABLE then, of the last such run before it; null when it was
 * never unsettled.
 */
export function troubleStart(member: MemberTimeline, tUs: Micros): Micros | null {
  const states = member.states;
  let i = states.length - 1;
  while (i >= 0 && (states[i] as MemberTimeline["states"][number]).fromUs > tUs) i--;
  // Skip the settled stretch the member is in, back to the unsettled one before it.
  while (i >= 0 && (states[i] as MemberTimeline["states"][number]).state === "STABLE") i--;
  if (i < 0) return null;
  let from = (states[i] as MemberTimeline["states"][number]).fromUs;
  while (i > 0 && (states[i - 1] as MemberTimeline["states"][number]).state !== "STABLE") {
    i--;
    from = (states[i] as MemberTimeline["states"][number]).fromUs;
  }
  return from;
}
