import { followGroupMetrics, type GroupMetrics, type GroupMetricsFollower } from "../analysis/group-metrics.js";
import { type EventFollower, HistoryPass } from "../analysis/history-pass.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import type { NetworkMode } from "../router/fault-plan.js";

/** Metrics every run reports, whatever its actors: traffic and its fates, and the simulation's speed. */
export interface RunMetrics {
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly eventsProcessed: number;
  readonly historyEvents: number;
  /** The network the run used ("connection", the default, or "datagram"). */
  readonly network: NetworkMode;
  readonly messages: number;
  readonly delivered: number;
  readonly dropped: number;
  readonly partitioned: number;
  readonly duplicated: number;
  readonly reordered: number;
  readonly corrupted: number;
  /** Connection mode: connections broken by a fault, messages lost with them, messages a partition held back. */
  readonly breaks: number;
  readonly broken: number;
  readonly held: number;
  /** Connection mode: connections opened (connect attempts), and those that ended by a request timeout or a failed connect. */
  readonly connects: number;
  readonly timeouts: number;
  readonly rejectedFrames: number;
  readonly lostMessages: number;
  readonly actorErrors: number;
  /** Frame bytes sent (all messages, and per type); 0 in a run judged without its history, whose messages are not sized. */
  readonly bytes: number;
  readonly messagesByType: Readonly<Record<string, { readonly count: number; readonly bytes: number }>>;
  /** Simulated seconds per wall-clock second. */
  readonly speedup: number;
  /** Per consumer group: rebalances, time to stable, partitions without an owner, heartbeat rate. */
  readonly groups: readonly GroupMetrics[];
}

/** A run's metrics, counted as its history streams by (followers of the run's history pass). */
export class RunMetricsFollower implements EventFollower {
  readonly reads = ["reject", "lost", "error", "conn"];
  #rejectedFrames = 0;
  #lostMessages = 0;
  #actorErrors = 0;
  #connects = 0;
  #timeouts = 0;
  readonly #groups: readonly GroupMetricsFollower[];

  /** Joins `pass`, with a follower per consumer group of its spec. */
  constructor(pass: HistoryPass) {
    pass.follow(this);
    this.#groups = followGroupMetrics(pass);
  }

  accept(event: HistoryEvent): void {
    if (event.ev === "reject") this.#rejectedFrames++;
    else if (event.ev === "lost") this.#lostMessages++;
    else if (event.ev === "error") this.#actorErrors++;
    else if (event.ev === "conn") {
      if (event.what === "connect") this.#connects++;
      else if (event.what === "close" || event.what === "connect-timeout") this.#timeouts++;
    }
  }

  /** The metrics of the run, which ran as `spec` says (its duration: where an interrupted run stopped). */
  finish(result: Omit<RunResult, "events">, spec: SimulationSpec): RunMetrics {
    const router = result.router;
    const virtualMs = result.virtualEndUs / 1000;
    const sortedTypes = Object.keys(router.byType).sort();
    return {
      virtualMs,
      wallMs: Math.round(result.wallMs * 10) / 10,
      eventsProcessed: result.eventsProcessed,
      historyEvents: result.log.length,
      network: spec.plan.network.mode,
      messages: router.messages,
      delivered: router.delivered,
      dropped: router.dropped,
      partitioned: router.partitioned,
      duplicated: router.duplicated,
      reordered: router.reordered,
      corrupted: router.corrupted,
      breaks: router.breaks,
      broken: router.broken,
      held: router.held,
      connects: this.#connects,
      timeouts: this.#timeouts,
      rejectedFrames: this.#rejectedFrames,
      lostMessages: this.#lostMessages,
      actorErrors: this.#actorErrors,
      bytes: router.bytes,
      messagesByType: Object.fromEntries(sortedTypes.map((type) => [type, router.byType[type] as { count: number; bytes: number }])),
      speedup: result.wallMs > 0 ? Math.round(virtualMs / result.wallMs) : 0,
      groups: this.#groups.map((group) => group.finish(spec.durationUs)),
    };
  }
}

/** A finished run's metrics, from its recorded events (one pass). */
export function runMetrics(result: Omit<RunResult, "events">, spec: SimulationSpec): RunMetrics {
  const pass = new HistoryPass(spec);
  const metrics = new RunMetricsFollower(pass);
  result.log.forEach((event, index) => {
    pass.accept(event, index);
  });
  return metrics.finish(result, spec);
}
