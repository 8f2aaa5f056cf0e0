import type { Micros } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

/** Something that reads a history event by event, in order. */
export interface EventFollower {
  /**
   * The events it needs: event kinds ("send", "life", "conn", ...), "obs" for
   * every observation, observation types ("gc.member", ...), or the sends of
   * one message type ("send OffsetCommitRequest"). Omitted: every event. It
   * is handed those events and no others.
   */
  readonly reads?: readonly string[];
  accept(event: HistoryEvent, index: number): void;
  /** The instant (virtual time) of the events so far is over: a later one begins with the next event. */
  instantOver?(): void;
}

/** An analysis several followers of one pass share, built by this function on first use. */
export type SharedAnalysis<T extends EventFollower> = (pass: HistoryPass) => T;

export interface HistoryPassOptions {
  /**
   * false: every follower is handed every event, whatever it reads (tests: what a follower reads may narrow
   * what it is handed, never what it concludes). Default true.
   */
  readonly routed?: boolean;
}

/** A call due at the first event at or after a time (see HistoryPass.atFirstEventFrom). */
interface Wake {
  readonly from: Micros;
  readonly wake: (event: HistoryEvent, index: number) => void;
}

/**
 * One pass over a run's history that feeds every checker and metric at once,
 * whether the events come live from the History as they are recorded or
 * from an array. Analyses that several of them need (who owns which
 * partition, what each application consumed) are built once per pass
 * (`shared`) and see each event before the followers that read them.
 * Each event goes only to the followers that read its kind or type, in the
 * order they joined.
 */
export class HistoryPass {
  readonly spec: SimulationSpec;
  readonly #followers: EventFollower[] = [];
  readonly #instantFollowers: EventFollower[] = [];
  readonly #shared = new Map<SharedAnalysis<EventFollower>, EventFollower>();
  /** Followers of each observation type, and of each other kind of event. */
  readonly #byType = new Map<string, readonly EventFollower[]>();
  readonly #byKind = new Map<string, readonly EventFollower[]>();
  /** Followers of each message type's sends. */
  readonly #bySend = new Map<string, readonly EventFollower[]>();
  readonly #routed: boolean;
  /** Calls due at an event to come, earliest first; #nextWake is the first one's time. */
  readonly #wakes: Wake[] = [];
  #nextWake = Number.POSITIVE_INFINITY;
  #instant = Number.NaN;
  #started = false;

  constructor(spec: SimulationSpec, options: HistoryPassOptions = {}) {
    this.spec = spec;
    this.#routed = options.routed ?? true;
  }

  /** The time of the last event accepted (NaN before the first). */
  get instant(): Micros {
    return this.#instant;
  }

  /**
   * Calls `wake` once, with the first event at or after `from` (whatever its kind), once every follower
   * handed that event has seen it: a follower that reads a few kinds of events may still need to know when
   * a moment has come.
   */
  atFirstEventFrom(from: Micros, wake: (event: HistoryEvent, index: number) => void): void {
    let at = this.#wakes.length;
    while (at > 0 && (this.#wakes[at - 1] as Wake).from > from) at--;
    this.#wakes.splice(at, 0, { from, wake });
    this.#nextWake = (this.#wakes[0] as Wake).from;
  }

  /** The pass's instance of a shared analysis, made (and fed from then on) the first time anyone asks. */
  shared<T extends EventFollower>(make: SharedAnalysis<T>): T {
    const known = this.#shared.get(make as SharedAnalysis<EventFollower>);
    if (known !== undefined) return known as T;
    const made = make(this);
    this.#shared.set(make as SharedAnalysis<EventFollower>, made);
    this.follow(made);
    return made;
  }

  /** Adds a follower: it sees every event from the first one on, after the followers (and shared analyses) before it. */
  follow(follower: EventFollower): void {
    if (this.#started) throw new Error("a history pass takes its followers before its first event");
    this.#followers.push(follower);
    if (follower.instantOver !== undefined) this.#instantFollowers.push(follower);
  }

  accept(event: HistoryEvent, index: number): void {
    this.#started = true;
    if (event.t !== this.#instant) {
      if (!Number.isNaN(this.#instant)) for (const follower of this.#instantFollowers) follower.instantOver?.();
      this.#instant = event.t;
    }
    const route =
      event.ev === "obs"
        ? (this.#byType.get(event.o.type) ?? this.#route(this.#byType, event.o.type, event))
        : event.ev === "send"
          ? (this.#bySend.get(event.type) ?? this.#route(this.#bySend, event.type, event))
          : (this.#byKind.get(event.ev) ?? this.#route(this.#byKind, event.ev, event));
    for (let i = 0; i < route.length; i++) (route[i] as EventFollower).accept(event, index);
    if (event.t >= this.#nextWake) this.#wake(event, index);
  }

  /** Feeds a whole history, in order. */
  acceptAll(events: Iterable<HistoryEvent>): void {
    let index = 0;
    for (const event of events) this.accept(event, index++);
  }

  /** Calls the wakes due at this event (see atFirstEventFrom), in order. */
  #wake(event: HistoryEvent, index: number): void {
    const wakes = this.#wakes;
    while (wakes.length > 0 && (wakes[0] as Wake).from <= event.t) (wakes.shift() as Wake).wake(event, index);
    this.#nextWake = wakes.length > 0 ? (wakes[0] as Wake).from : Number.POSITIVE_INFINITY;
  }

  #route(routes: Map<string, readonly EventFollower[]>, key: string, event: HistoryEvent): readonly EventFollower[] {
    const reads = (follower: EventFollower) => {
      const wanted = follower.reads;
      if (wanted === undefined || !this.#routed) return true;
      if (event.ev === "obs") return wanted.includes("obs") || wanted.includes(event.o.type);
      if (event.ev === "send") return wanted.includes("send") || wanted.includes(`send ${event.type}`);
      return wanted.includes(event.ev);
    };
    const route = this.#followers.filter(reads);
    routes.set(key, route);
    return route;
  }
}
