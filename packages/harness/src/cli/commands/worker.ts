import { availableParallelism } from "node:os";
import { startQueueWorker } from "../../hunt/queue/queue-worker.js";
import { integerFlag, parseFlags } from "../parse-flags.js";
import { queueFlag } from "../queue-flag.js";
import { UsageError } from "../usage-error.js";

/** BullMQ's default lock: a killed worker's jobs go to other workers within about this long. */
const DEFAULT_LOCK_MS = 30_000;

/**
 * `kcsim worker --queue redis://HOST:PORT[/DB] [--workers N] [--lock-ms MS]`:
 * runs the jobs of `kcsim hunt --queue` hunts on a piscina pool (one thread
 * per core by default) until SIGINT or SIGTERM; the first signal lets the
 * runs in flight finish and report, a second one stops at once (their jobs
 * go to other workers when their locks run out).
 */
export async function workerCommand(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseFlags("worker", argv, {
    queue: { type: "string" },
    workers: { type: "string" },
    "lock-ms": { type: "string" },
  });
  if (positionals.length > 0) throw new UsageError(`worker: unexpected argument '${positionals[0]}'`);
  const address = queueFlag("worker", values.queue);
  if (address === null) throw new UsageError("worker: --queue redis://HOST:PORT[/DB] is required");
  const threads = integerFlag("worker", "workers", values.workers, 1) ?? availableParallelism();
  const lockMs = integerFlag("worker", "lock-ms", values["lock-ms"], 1000) ?? DEFAULT_LOCK_MS;
  const say = (line: string) => process.stderr.write(`kcsim worker: ${line}\n`);
  const worker = await startQueueWorker({ address, threads, lockMs, say, log: (line) => process.stdout.write(`${line}\n`) });
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      say(`${signal}: finishing the runs in flight, then stopping (${signal} again to stop now)`);
      process.once(signal === "SIGINT" ? "SIGINT" : "SIGTERM", () => process.exit(130));
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await worker.close();
  say("stopped");
  return 0;
}
