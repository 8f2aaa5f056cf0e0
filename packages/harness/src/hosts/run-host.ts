import { ASYNC_ACTOR_KINDS, DEFAULT_REGISTRY } from "../actors/registry.js";
import type { HistoryOptions } from "../history/history.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { RunResult } from "../kernel/run-result.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { MAX_WORKERS } from "../scenario/limits.js";
import { ScenarioError } from "../scenario/scenario-error.js";
import { InlineHost } from "./inline-host.js";
import { LockstepHost } from "./lockstep/lockstep-host.js";
import { RealtimeHost } from "./realtime/realtime-host.js";
import { ActorLogs, type LogSpec, SILENT_LOGS } from "./worker/actor-logs.js";
import { loadRegistry, withDefaultActors } from "./worker/load-registry.js";
import { type ActorsPerWorker, planShards } from "./worker/shard-plan.js";

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
  /**
   * A built module exporting `registry` (a Map of actor kinds): custom actors on every host (the worker
   * hosts import it in each worker; inline imports it here). Default: kcsim's own kinds.
   */
  readonly registryModule?: string | null;
  /** Realtime: stream the recording to this file (recording.jsonl) as the run goes. */
  readonly recordingFile?: string | null;
  /** Realtime: aborting it ends the run cleanly at the current instant. */
  readonly signal?: AbortSignal;
  /** Actor kinds in this process (tests, the library): the inline host only, since workers cannot share functions. */
  readonly registry?: ActorRegistry;
  /** Inline: nothing outside the run reads the sizes of its messages (see InlineHostOptions.unsizedMessages). */
  readonly unsizedMessages?: boolean;
}

export interface HostRun {
  readonly result: RunResult;
  /** The realtime host's recording (recording.jsonl) when it was not streamed to a file, null for the other hosts. */
  readonly recording: string | null;
}

/** A worker host may start at most MAX_WORKERS threads: past that the machine runs out of memory mappings, not of work. */
function checkWorkerCount(spec: SimulationSpec, host: HostName, perWorker: ActorsPerWorker): void {
  const workers = planShards(
    spec.actors.map((a) => a.id),
    perWorker,
  ).length;
  if (workers > MAX_WORKERS) {
    throw new ScenarioError(
      `${spec.scenario}: ${host}: ${spec.actors.length} actors in ${workers} worker threads: more than the limit of ${MAX_WORKERS} (share workers: --actors-per-worker ${Math.ceil(spec.actors.length / MAX_WORKERS)} or auto)`,
    );
  }
}

/** Runs a spec in the named host. */
export async function runInHost(
  spec: SimulationSpec,
  host: HostName,
  options: HostOptions = {},
  history: HistoryOptions = {},
): Promise<HostRun> {
  if (host !== "inline") checkWorkerCount(spec, host, options.actorsPerWorker ?? 1);
  const logs = options.logs ?? SILENT_LOGS;
  const registryModule = options.registryModule ?? null;
  if (options.registry !== undefined && host !== "inline")
    throw new ScenarioError(
      `custom actors given as a registry run inline only; the ${host} host needs them as a module path (registryModule)`,
    );
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
      ...(options.recordingFile != null ? { recordingFile: options.recordingFile } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    const result = await realtime.run();
    return { result, recording: options.recordingFile != null ? null : realtime.recordingText() };
  }
  let inline: InlineHost | null = null;
  const actorLogs = await ActorLogs.open(logs.level, logs.dir, () => inline?.core.now ?? 0, false);
  const registry =
    options.registry !== undefined
      ? withDefaultActors(options.registry)
      : registryModule === null
        ? DEFAULT_REGISTRY
        : await loadRegistry(registryModule);
  inline = new InlineHost(spec, registry, {
    history,
    loggerFor: (actor) => actorLogs.loggerFor(actor),
    ...(options.unsizedMessages === true ? { unsizedMessages: true } : {}),
  });
  try {
    return { result: await inline.runAsync(), recording: null };
  } finally {
    actorLogs.flush();
  }
}
