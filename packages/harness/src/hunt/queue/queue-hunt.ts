import { randomBytes } from "node:crypto";
import { Queue, QueueEvents } from "bullmq";
import type { HuntOutcome } from "../hunt-runner.js";
import { type HuntRunResult, type HuntTask, ranOn } from "../hunt-task.js";
import { runErrorResult } from "../run-error-result.js";
import { seedsOf } from "../seed-ranges.js";
import {
  fromQueued,
  type HuntJob,
  type HuntJobResult,
  huntKey,
  jobIdOf,
  type KcsimVersions,
  QUEUE_NAME,
  seedOfJob,
  stopKey,
} from "./queue-job.js";
import { connectionOptions, type RedisLink } from "./redis-link.js";

/** A hunt on the queue, as stored in Redis under huntKey(id): enough for `--resume` to reattach from anywhere. */
export interface QueuedHunt {
  readonly huntId: string;
  /** The scenario's name, or the swarm's ("swarm", "swarm-data", "swarm-migration"). */
  readonly label: string;
  readonly fromSeed: number;
  readonly toSeed: number;
  /** Every run's task but its seed: the scenario (or the swarm) and the hunt's flags. */
  readonly template: Omit<HuntTask, "seed">;
  readonly stopOnFailure: boolean;
  /** Where the submitting command writes failure directories. */
  readonly outDir: string;
  /** Epoch ms when the hunt was submitted: a resumed hunt's wall time counts from here. */
  readonly createdAt: number;
  readonly versions: KcsimVersions;
}

export const newHuntId = (): string => randomBytes(4).toString("hex");

/** The hunt stored under `huntId`, or null when Redis has none (never submitted, or finished and cleaned up). */
export async function readQueuedHunt(link: RedisLink, huntId: string): Promise<QueuedHunt | null> {
  const text = await link.client.get(huntKey(huntId));
  return text === null ? null : (JSON.parse(text) as QueuedHunt);
}

export interface QueueHuntOutcome extends HuntOutcome {
  /** `host/pid` of every worker that answered a job of this hunt. */
  readonly workersSeen: readonly string[];
  /** Runs whose job had been started before (a worker died holding it), each reported once all the same. */
  readonly retried: number;
}

export interface QueueHuntOptions {
  readonly link: RedisLink;
  readonly hunt: QueuedHunt;
  /** Called once per seed that ran, in arrival order; `done` counts the runs so far. */
  readonly onResult: (result: HuntRunResult, done: number, workersSeen: number) => void;
}

/** Jobs added, looked up or removed per round trip. */
const BATCH = 500;
/** With seeds outstanding and no event for this long, look the jobs up directly (an event stream trimmed or missed). */
const SWEEP_AFTER_IDLE_MS = 30_000;

/**
 * Submits (or reattaches to) a hunt on the queue and collects its results
 * until every seed is accounted for: each seed's job id is fixed, so adding
 * it again is a no-op, and each seed is reported once, whichever worker ran
 * it and however often its job was retried. Results arrive as BullMQ
 * "completed" events; at the start, after every reconnection to Redis and
 * when the events go quiet, the outstanding jobs are also looked up
 * directly, and any job Redis lost is added again.
 */
export async function runQueueHunt(options: QueueHuntOptions): Promise<QueueHuntOutcome> {
  const { link, hunt } = options;
  const seeds = [...seedsOf([{ from: hunt.fromSeed, to: hunt.toSeed }])];
  const pending = new Set(seeds);
  const failures: HuntRunResult[] = [];
  const ran: number[] = [];
  const workers = new Map<string, number>();
  let simulatedMs = 0;
  let extended = 0;
  let retried = 0;
  let stopping = false;
  let stopped: Promise<void> = Promise.resolve();
  let lastNews = Date.now();
  let settle: () => void = () => {};
  const allIn = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const connection = connectionOptions(link.address);
  const queue = new Queue<HuntJob, HuntJobResult>(QUEUE_NAME, { connection });
  queue.on("error", (error) => link.bullmqError(error));

  const taskOf = (seed: number): HuntTask => ({ ...hunt.template, seed });

  const account = (seed: number, answer: HuntJobResult | { readonly failedReason: string }): void => {
    if (!pending.delete(seed)) return;
    lastNews = Date.now();
    let result: HuntRunResult | null = null;
    if ("failedReason" in answer) {
      // BullMQ gave up on the job (its workers kept dying): the seed is reported as a run that could not finish.
      result = runErrorResult(taskOf(seed), new Error(`the queue gave up on this run: ${answer.failedReason}`));
    } else {
      workers.set(answer.worker, answer.threads);
      if (answer.run !== undefined) result = fromQueued(answer.run);
      if (answer.run !== undefined && answer.starts > 1) retried++;
    }
    if (result !== null) {
      ran.push(seed);
      simulatedMs += result.virtualMs;
      if (ranOn(result)) extended++;
      if (result.failures.length > 0) failures.push(result);
      options.onResult(result, ran.length, workers.size);
      if (result.failures.length > 0 && hunt.stopOnFailure && !stopping) stopped = stop();
    }
    if (pending.size === 0) settle();
  };

  const onEvent = (jobId: string, answer: HuntJobResult | { readonly failedReason: string }): void => {
    const seed = seedOfJob(hunt.huntId, jobId);
    if (seed !== null) account(seed, answer);
  };

  /**
   * Looks up every outstanding job and takes the finished ones' results;
   * returns the seeds whose jobs Redis does not hold. Reads only a few
   * small fields of each job (its data holds the whole scenario), and a
   * finished job's return value.
   */
  const sweep = async (): Promise<number[]> => {
    lastNews = Date.now();
    const missing: number[] = [];
    const outstanding = [...pending];
    for (let i = 0; i < outstanding.length; i += BATCH) {
      const batch = outstanding.slice(i, i + BATCH);
      const key = (seed: number) => queue.toKey(jobIdOf(hunt.huntId, seed));
      const states = await Promise.all(batch.map((seed) => link.client.hmget(key(seed), "timestamp", "finishedOn", "failedReason")));
      const finished: number[] = [];
      batch.forEach((seed, k) => {
        const [created, finishedOn, failedReason] = states[k] ?? [];
        if (created === null || created === undefined) missing.push(seed);
        else if (finishedOn !== null && finishedOn !== undefined) {
          if (failedReason) account(seed, { failedReason });
          else finished.push(seed);
        }
      });
      const values = await Promise.all(finished.map((seed) => link.client.hget(key(seed), "returnvalue")));
      finished.forEach((seed, k) => {
        const value = values[k];
        account(seed, value === null || value === undefined ? { failedReason: "finished without a result" } : parseAnswer(value));
      });
    }
    return missing;
  };

  const add = async (batch: readonly number[]): Promise<void> => {
    for (let i = 0; i < batch.length; i += BATCH) {
      await queue.addBulk(
        batch.slice(i, i + BATCH).map((seed) => ({
          name: "run",
          data: { huntId: hunt.huntId, versions: hunt.versions, task: taskOf(seed) },
          opts: { jobId: jobIdOf(hunt.huntId, seed), removeOnComplete: false, removeOnFail: false },
        })),
      );
    }
  };

  /** The first failure of a hunt that stops at it: no new run starts; runs in flight finish and are reported. */
  const stop = async (): Promise<void> => {
    stopping = true;
    await link.client.set(stopKey(hunt.huntId), "1");
    const outstanding = [...pending];
    for (let i = 0; i < outstanding.length; i += BATCH) {
      const batch = outstanding.slice(i, i + BATCH);
      // A waiting job goes at once; a job some worker holds cannot be removed (BullMQ answers 0): it finishes, or is skipped, and is waited for.
      const removed = await Promise.all(batch.map((seed) => queue.remove(jobIdOf(hunt.huntId, seed))));
      batch.forEach((seed, k) => {
        if (removed[k] === 1) pending.delete(seed);
      });
    }
    if (pending.size === 0) settle();
  };

  /** Makes Redis hold the hunt again (after a restart it may hold nothing): its definition, its stop flag, its missing jobs. */
  const reconcile = async (): Promise<void> => {
    if (pending.size === 0) return;
    await link.client.set(huntKey(hunt.huntId), JSON.stringify(hunt));
    if (stopping) await link.client.set(stopKey(hunt.huntId), "1");
    const missing = await sweep();
    if (!stopping) await add(missing);
    else for (const seed of missing) if (pending.delete(seed) && pending.size === 0) settle();
  };

  // Read the event stream's position before looking at any job: whatever finishes after it arrives as an event, whatever before, the sweep finds.
  const lastEventId = await latestEventId(link, queue);
  const events = new QueueEvents(QUEUE_NAME, { connection, lastEventId });
  events.on("error", (error) => link.bullmqError(error));
  events.on("completed", ({ jobId, returnvalue }) => onEvent(jobId, parseAnswer(returnvalue)));
  events.on("failed", ({ jobId, failedReason }) => onEvent(jobId, { failedReason }));
  let reconciling: Promise<void> = Promise.resolve();
  const reconcileSoon = () => {
    reconciling = reconciling.then(reconcile, reconcile);
  };
  const idle = setInterval(() => {
    if (pending.size > 0 && Date.now() - lastNews > SWEEP_AFTER_IDLE_MS) reconcileSoon();
  }, SWEEP_AFTER_IDLE_MS / 3);
  link.onReconnect(reconcileSoon);
  try {
    await link.client.set(huntKey(hunt.huntId), JSON.stringify(hunt));
    if ((await link.client.exists(stopKey(hunt.huntId))) === 1) stopping = true;
    const missing = await sweep();
    if (!stopping) await add(missing);
    else for (const seed of missing) pending.delete(seed);
    if (pending.size === 0) settle();
    await allIn;
    await stopped;
    await reconciling;
  } finally {
    clearInterval(idle);
    link.onReconnect(() => {});
    await events.close();
  }
  // Every seed is in and written by the caller's onResult: the hunt leaves nothing behind in Redis.
  await link.client.del(huntKey(hunt.huntId), stopKey(hunt.huntId));
  for (let i = 0; i < seeds.length; i += BATCH)
    await Promise.all(seeds.slice(i, i + BATCH).map((seed) => queue.remove(jobIdOf(hunt.huntId, seed))));
  await queue.close();
  failures.sort((a, b) => a.seed - b.seed);
  return {
    runs: ran.length,
    seeds: ran.sort((a, b) => a - b),
    // A queue hunt is not stopped by a signal of the submitter: the jobs stay queued and `--resume` reattaches.
    interrupted: false,
    failures,
    elapsedMs: Date.now() - hunt.createdAt,
    simulatedMs,
    extended,
    workers: [...workers.values()].reduce((sum, threads) => sum + threads, 0),
    workersSeen: [...workers.keys()].sort(),
    retried,
  };
}

/** A job's return value, as BullMQ hands it over (parsed, or still a JSON string). */
function parseAnswer(value: unknown): HuntJobResult {
  return (typeof value === "string" ? JSON.parse(value) : value) as HuntJobResult;
}

/** The id of the newest entry of the queue's event stream ("0-0" when it has none yet). */
async function latestEventId(link: RedisLink, queue: Queue<HuntJob, HuntJobResult>): Promise<string> {
  const newest = (await link.client.xrevrange(queue.keys.events as string, "+", "-", "COUNT", 1)) as [string, string[]][];
  return newest[0]?.[0] ?? "0-0";
}
