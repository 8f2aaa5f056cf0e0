import { hostname } from "node:os";
import { DelayedError, type Job, Worker } from "bullmq";
import { HuntPool } from "../hunt-pool.js";
import { type HuntJobResult, isHuntJob, OWN_VERSIONS, QUEUE_NAME, stopKey, toQueued, versionMismatch } from "./queue-job.js";
import { connectionOptions, type QueueAddress, RedisLink } from "./redis-link.js";

/** A refused job waits this long before any worker may take it again, so a worker of the wrong version does not spin on it. */
export const REFUSED_JOB_DELAY_MS = 2_000;
/** A job whose workers died this many times in a row is failed (reported as a run-error of its seed) instead of retried again. */
export const MAX_STALLS = 5;

export interface QueueWorkerOptions {
  readonly address: QueueAddress;
  /** Piscina threads, and jobs taken at once. */
  readonly threads: number;
  /**
   * How long a job stays locked to this worker without a renewal (the
   * worker renews it every half of that while it runs); a killed worker's
   * jobs go back to the queue once their locks run out (BullMQ's stalled-job
   * check, run by every worker this often too).
   */
  readonly lockMs: number;
  /** One line about the worker itself (refusals, Redis outages), for stderr. */
  readonly say: (line: string) => void;
  /** One line per finished job, for stdout. */
  readonly log: (line: string) => void;
}

export interface RunningQueueWorker {
  readonly name: string;
  /** Stops taking jobs, lets the runs in flight finish and report, then shuts the pool and connections. */
  close(): Promise<void>;
}

/**
 * `kcsim worker`: takes hunt jobs from the queue and runs each on its own
 * piscina pool. A job from another kcsim (version, wire protocol, history
 * format) is refused with one line and put back, delayed, for another
 * worker; a job of a hunt that has stopped (at its first failure) is
 * answered as skipped without running.
 */
export async function startQueueWorker(options: QueueWorkerOptions): Promise<RunningQueueWorker> {
  const name = `${hostname()}/${process.pid}`;
  const link = new RedisLink(options.address, options.say);
  const pool = new HuntPool(options.threads);
  const refusedHunts = new Set<string>();

  /** Puts a job back (delayed) without running it; says why once per hunt. */
  const refuse = async (job: Job, hunt: string, why: string, token?: string): Promise<never> => {
    if (!refusedHunts.has(hunt)) options.say(why);
    refusedHunts.add(hunt);
    await job.moveToDelayed(Date.now() + REFUSED_JOB_DELAY_MS, token);
    throw new DelayedError();
  };

  const processJob = async (job: Job, token?: string): Promise<HuntJobResult> => {
    const data: unknown = job.data;
    if (!isHuntJob(data)) return refuse(job, String(job.id), `job ${job.id} is not a kcsim hunt job; it goes back to the queue`, token);
    const { huntId, task } = data;
    const mismatch = versionMismatch(data.versions);
    if (mismatch !== null)
      return refuse(job, huntId, `hunt ${huntId}: refused: ${mismatch}; its jobs go back to the queue for another worker`, token);
    if ((await link.client.exists(stopKey(huntId))) === 1) return { worker: name, threads: options.threads, starts: job.attemptsStarted };
    const run = await pool.run(task);
    const verdict = run.failures.length === 0 ? "ok" : `FAIL ${run.failures.map((f) => f.check).join(", ")}`;
    options.log(`hunt ${huntId} seed ${task.seed}: ${verdict} (${(run.wallMs / 1000).toFixed(1)} s)`);
    return { worker: name, threads: options.threads, starts: job.attemptsStarted, run: toQueued(run) };
  };

  const worker = new Worker(QUEUE_NAME, processJob, {
    connection: connectionOptions(options.address),
    concurrency: options.threads,
    lockDuration: options.lockMs,
    stalledInterval: options.lockMs,
    maxStalledCount: MAX_STALLS,
    name,
  });
  worker.on("error", (error) => link.bullmqError(error));
  options.say(
    `worker ${name}: ${options.threads} ${options.threads === 1 ? "thread" : "threads"}, queue ${QUEUE_NAME} on ${options.address.shown} ` +
      `(kcsim ${OWN_VERSIONS.kcsim}, protocol ${OWN_VERSIONS.protocol}, history format ${OWN_VERSIONS.historyFormat})`,
  );
  return {
    name,
    async close() {
      await worker.close();
      await pool.destroy();
      await link.close();
    },
  };
}
