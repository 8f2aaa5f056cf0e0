import { gunzipSync, gzipSync } from "node:zlib";
import type { HistoryHeader } from "../../history/history-event.js";
import { KCSIM_VERSION, PROTOCOL_VERSION } from "../../kernel/simulation-core.js";
import type { HuntRunResult, HuntTask } from "../hunt-task.js";

/** The BullMQ queue every kcsim hunt and worker shares (jobs name their hunt). */
export const QUEUE_NAME = "kcsim-hunt";

/** The history header format this kcsim writes; typed by the header, so a format change cannot leave it behind. */
const HISTORY_FORMAT: HistoryHeader["format"] = 8;

/** What must match between the kcsim that submits a job and the one that runs it, for the run to mean the same. */
export interface KcsimVersions {
  readonly kcsim: string;
  /** The wire format of messages (msgpack structures). */
  readonly protocol: string;
  /** The history header format (history.jsonl and its hash). */
  readonly historyFormat: number;
}

export const OWN_VERSIONS: KcsimVersions = { kcsim: KCSIM_VERSION, protocol: PROTOCOL_VERSION, historyFormat: HISTORY_FORMAT };

const describe = (v: KcsimVersions) => `kcsim ${v.kcsim}, protocol ${v.protocol}, history format ${v.historyFormat}`;

/** Null when a job made by `theirs` may run here; otherwise why not, in one sentence (naming this side `self`). */
export function versionMismatch(theirs: KcsimVersions, self = "this worker"): string | null {
  const same =
    theirs.kcsim === OWN_VERSIONS.kcsim && theirs.protocol === OWN_VERSIONS.protocol && theirs.historyFormat === OWN_VERSIONS.historyFormat;
  return same ? null : `it was submitted by ${describe(theirs)}; ${self} is ${describe(OWN_VERSIONS)}`;
}

/** One job: one seed of one hunt, with everything a worker needs to run it (the scenario and the hunt's flags are in the task). */
export interface HuntJob {
  readonly huntId: string;
  readonly versions: KcsimVersions;
  readonly task: HuntTask;
}

/** A run's result as it travels back through the queue: a failing run's history, when asked for, gzipped. */
export type QueuedRunResult = Omit<HuntRunResult, "history"> & { readonly historyGzip?: string };

/** What a worker returns for a job (stored by BullMQ as the job's return value). */
export interface HuntJobResult {
  /** `host/pid` of the worker process. */
  readonly worker: string;
  /** Its pool size. */
  readonly threads: number;
  /** How many times the job was started, this time included: more than once when a worker died holding it (or refused it). */
  readonly starts: number;
  /** The run, or absent when the hunt had already stopped (at its first failure) and the seed was skipped. */
  readonly run?: QueuedRunResult;
}

export function isHuntJob(data: unknown): data is HuntJob {
  const job = data as Partial<HuntJob> | null;
  return (
    typeof job === "object" &&
    job !== null &&
    typeof job.huntId === "string" &&
    typeof job.versions === "object" &&
    job.versions !== null &&
    typeof job.task === "object" &&
    job.task !== null &&
    typeof job.task.seed === "number"
  );
}

/** Job ids name the hunt and the seed, so adding a seed twice (a resumed hunt) is a no-op in BullMQ. */
export const jobIdOf = (huntId: string, seed: number): string => `${huntId}-${seed}`;

/** The seed of one of a hunt's job ids, or null for another hunt's job. */
export function seedOfJob(huntId: string, jobId: string): number | null {
  const prefix = `${huntId}-`;
  if (!jobId.startsWith(prefix)) return null;
  const seed = Number(jobId.slice(prefix.length));
  return Number.isSafeInteger(seed) ? seed : null;
}

/** Redis keys of a hunt besides its jobs: its definition (to resume it) and its stop flag (set at the first failure). */
export const huntKey = (huntId: string): string => `kcsim:hunt:${huntId}`;
export const stopKey = (huntId: string): string => `kcsim:hunt:${huntId}:stop`;

export function toQueued(result: HuntRunResult): QueuedRunResult {
  const { history, ...rest } = result;
  return history === undefined ? rest : { ...rest, historyGzip: gzipSync(history).toString("base64") };
}

export function fromQueued(run: QueuedRunResult): HuntRunResult {
  const { historyGzip, ...rest } = run;
  return historyGzip === undefined ? rest : { ...rest, history: gunzipSync(Buffer.from(historyGzip, "base64")).toString("utf8") };
}
