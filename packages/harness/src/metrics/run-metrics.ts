import { type GroupMetrics, groupMetrics } from "../analysis/group-metrics.js";
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
  readonly bytes: number;
  readonly messagesByType: Readonly<Record<string, { readonly count: number; readonly bytes: number }>>;
  /** Simulated seconds per wall-clock second. */
  readonly speedup: number;
  /** Per consumer group: rebalances, time to stable, partitions without an owner, heartbeat rate. */
  readonly groups: readonly GroupMetrics[];
}

export function runMetrics(result: RunResult, spec: SimulationSpec): RunMetrics {
  let rejectedFrames = 0;
  let lostMessages = 0;
  let actorErrors = 0;
  let connects = 0;
  let timeouts = 0;
  for (const event of result.events) {
    if (event.ev === "reject") rejectedFrames++;
    else if (event.ev === "lost") lostMessages++;
    else if (event.ev === "error") actorErrors++;
    else if (event.ev === "conn") {
      if (event.what === "connect") connects++;
      else if (event.what === "close" || event.what === "connect-timeout") timeouts++;
    }
  }
  const router = result.router;
  const virtualMs = result.virtualEndUs / 1000;
  const sortedTypes = Object.keys(router.byType).sort();
  return {
    virtualMs,
    wallMs: Math.round(result.wallMs * 10) / 10,
    eventsProcessed: result.eventsProcessed,
    historyEvents: result.events.length,
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
    connects,
    timeouts,
    rejectedFrames,
    lostMessages,
    actorErrors,
    bytes: router.bytes,
    messagesByType: Object.fromEntries(sortedTypes.map((type) => [type, router.byType[type] as { count: number; bytes: number }])),
    speedup: result.wallMs > 0 ? Math.round(virtualMs / result.wallMs) : 0,
    groups: groupMetrics(result.events, spec),
  };
}
