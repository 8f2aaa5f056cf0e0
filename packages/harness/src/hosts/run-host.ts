import { ASYNC_ACTOR_KINDS, DEFAULT_REGISTRY } from "../actors/registry.js";
import type { HistoryOptions } from "../history/history.js";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { ScenarioError } from "../scenario/load-scenario.js";
import { InlineHost } from "./inline-host.js";
import { LockstepHost } from "./lockstep/lockstep-host.js";
import { RealtimeHost } from "./realtime/realtime-host.js";
import { ActorLogs, type LogSpec, logFileOf, SILENT_LOGS } from "./worker/actor-logs.js";
import type { ActorsPerWorker } from "./worker/shard-plan.js";

export const HOST_NAMES = ["inline", "lockstep", "realtime"] as const;
export type HostName = (typeof HOST_NAMES)[number];

/** Everything about where and how a run executes, beyond the spec itself. */
export interface HostOptions {
  /** Worker hosts: actors per worker thread (default 1), or "auto". */
  readonly actorsPerWorker?: ActorsPerWorker;
  /** Realtime: real seconds per virtual second (default 1). */
  readonly timeScale?: number;
  /** pino logs of the actors (default silent). */
  readonly logs?: LogSpec;
  /** A built module exporting the actor `registry`; default: the default registry (inline ignores it). */
  readonly registryModule?: string | null;
}

export interface HostRun {
  readonly result: RunResult;
  /** The realtime host's recording (recording.jsonl), null for the other hosts. */
  readonly recording: string | null;
}

/** Runs a spec in the named host. */
export async function runInHost(
  spec: SimulationSpec,
  host: HostName,
  options: HostOptions = {},
  history: HistoryOptions = {},
): Promise<HostRun> {
  const logs = options.logs ?? SILENT_LOGS;
  const registryModule = options.registryModule ?? null;
  const asyncActor = host === "inline" ? undefined : spec.actors.find((a) => ASYNC_ACTOR_KINDS.has(a.kind));
  if (asyncActor !== undefined)
    throw new ScenarioError(
      `${spec.scenario}: actor ${asyncActor.id} (${asyncActor.kind}) runs async client code, which only the inline host runs`,
    );
  if (host === "lockstep") {
    const lockstep = new LockstepHost(spec, { history, logs, registryModule, actorsPerWorker: options.actorsPerWorker ?? 1 });
    return { result: await lockstep.run(), recording: null };
  }
  if (host === "realtime") {
    const realtime = new RealtimeHost(spec, {
      history,
      logs,
      registryModule,
      actorsPerWorker: options.actorsPerWorker ?? 1,
      timeScale: options.timeScale ?? 1,
    });
    const result = await realtime.run();
    return { result, recording: realtime.recordingText() };
  }
  let inline: InlineHost | null = null;
  const actorLogs = await ActorLogs.open(logs.level, logFileOf(logs, "inline"), () => inline?.core.now ?? 0, false);
  inline = new InlineHost(spec, DEFAULT_REGISTRY, { history, loggerFor: (actor) => actorLogs.loggerFor(actor) });
  try {
    return { result: await inline.runAsync(), recording: null };
  } finally {
    actorLogs.flush();
  }
}
