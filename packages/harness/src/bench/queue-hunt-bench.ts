import { join } from "node:path";
import { repoRoot } from "../cli/paths.js";
import { HuntPool } from "../hunt/hunt-pool.js";
import { hunt } from "../hunt/hunt-runner.js";
import { newHuntId, runQueueHunt } from "../hunt/queue/queue-hunt.js";
import { OWN_VERSIONS } from "../hunt/queue/queue-job.js";
import { RedisLink } from "../hunt/queue/redis-link.js";
import { loadScenarioFile } from "../scenario/load-scenario.js";
import { benchCount } from "./bench-setting.js";
import { type BenchRow, type BenchSuite, round } from "./bench-suite.js";
import { KcsimProcess } from "./kcsim-process.js";
import { freePort, RedisServer } from "./redis-server.js";

/** The seeds both hunts run: drawn fault plans over session-timeout, as the hunt suite does. */
const SCENARIO = "session-timeout";
/** How many seeds (KCSIM_QUEUE_BENCH_SEEDS, default 40). */
const seedCount = () => benchCount("KCSIM_QUEUE_BENCH_SEEDS", 40);
/** Two worker threads either way: a local pool of 2, or 2 `kcsim worker` processes of 1 thread each. */
const THREADS = 2;

interface Measured {
  readonly runsPerSecond: number;
  readonly seconds: number;
  /** Worker-slot time per run not spent in the run itself: getting the task to a thread and the result back (and, for the queue, Redis). */
  readonly overheadMsPerRun: number;
}

/**
 * Seed hunting on a BullMQ queue against the same hunt on a local pool:
 * the same seeds, two threads either way, one run after the other, both
 * warm (each thread has run a seed before the clock starts). The queue side
 * is a real redis-server on a free loopback port and two real `kcsim
 * worker` processes, started before the clock, as a fleet is. Overhead per run: the worker slots' time (wall time x threads)
 * minus the runs' own time, per run; the queue's overhead per job is its
 * overhead beyond the local pool's, measured in the same run.
 */
export const queueHuntBench: BenchSuite = {
  name: "queue-hunt",
  description: "hunting through BullMQ (Redis) with 2 worker processes vs a local pool of 2: runs/s and overhead per job",
  async run(): Promise<BenchRow[]> {
    const seeds = seedCount();
    const base = loadScenarioFile(join(repoRoot(), "scenarios", `${SCENARIO}.json`));
    const template = { base, asWritten: false, protocol: null };

    // Both sides start warm: the local pool's threads and the workers' pools have each run a seed (outside the measured ones) before the clock starts.
    const warmUp = { fromSeed: seeds + 1, toSeed: seeds + THREADS, stopOnFailure: false };
    const pool = new HuntPool(THREADS);
    let runMs = 0;
    let localMeasured: Measured;
    try {
      await hunt({ ...template, ...warmUp, pool });
      const local = await hunt({
        ...template,
        fromSeed: 1,
        toSeed: seeds,
        pool,
        stopOnFailure: false,
        onResult: (r) => (runMs += r.wallMs),
      });
      localMeasured = measure(local.runs, local.elapsedMs, runMs);
    } finally {
      await pool.destroy();
    }

    const server = new RedisServer(await freePort());
    const workers: KcsimProcess[] = [];
    try {
      await server.start();
      for (let i = 0; i < THREADS; i++) workers.push(new KcsimProcess(["worker", "--queue", server.url, "--workers", "1"]));
      await Promise.all(workers.map((w) => w.until((p) => p.stderr.includes(", queue kcsim-hunt on "), "a kcsim worker to start")));
      const link = new RedisLink({ url: server.url, shown: server.url }, (line) => process.stderr.write(`queue-hunt bench: ${line}\n`));
      let queueRunMs = 0;
      const queueHunt = (fromSeed: number, toSeed: number, onResult: (wallMs: number) => void) =>
        runQueueHunt({
          link,
          hunt: {
            huntId: newHuntId(),
            label: SCENARIO,
            fromSeed,
            toSeed,
            template,
            stopOnFailure: false,
            outDir: "",
            createdAt: Date.now(),
            versions: OWN_VERSIONS,
          },
          onResult: (r) => onResult(r.wallMs),
        });
      try {
        await queueHunt(warmUp.fromSeed, warmUp.toSeed, () => {});
        const queued = await queueHunt(1, seeds, (wallMs) => (queueRunMs += wallMs));
        const queueMeasured = measure(queued.runs, queued.elapsedMs, queueRunMs);
        return rows(seeds, localMeasured, queueMeasured);
      } finally {
        await link.close();
      }
    } finally {
      for (const w of workers) await w.kill("SIGTERM");
      await server.kill();
    }
  },
};

function measure(runs: number, elapsedMs: number, runMs: number): Measured {
  return { runsPerSecond: runs / (elapsedMs / 1000), seconds: elapsedMs / 1000, overheadMsPerRun: (elapsedMs * THREADS - runMs) / runs };
}

function rows(seeds: number, local: Measured, queue: Measured): BenchRow[] {
  const what = `${seeds} seeds of ${SCENARIO} (drawn faults)`;
  return [
    {
      suite: "queue-hunt",
      case: "local pool of 2",
      value: round(local.runsPerSecond),
      unit: "runs/s",
      note: `${what} in ${local.seconds.toFixed(1)} s; ${local.overheadMsPerRun.toFixed(1)} ms of slot time per run outside the run`,
    },
    {
      suite: "queue-hunt",
      case: "2 queue workers (1 thread each)",
      value: round(queue.runsPerSecond),
      unit: "runs/s",
      note: `${(queue.runsPerSecond / local.runsPerSecond).toFixed(2)}x the local pool (same run), ${queue.seconds.toFixed(1)} s; ${queue.overheadMsPerRun.toFixed(1)} ms of slot time per run outside the run`,
    },
    {
      suite: "queue-hunt",
      case: "queue overhead per job",
      value: round(queue.overheadMsPerRun - local.overheadMsPerRun),
      unit: "ms",
      note: "the queue's slot time per run beyond the local pool's: enqueue, take, lock, complete, event back to the hunt (same run)",
    },
  ];
}
