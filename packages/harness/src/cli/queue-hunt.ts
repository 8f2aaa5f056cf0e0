import { newHuntId, type QueuedHunt, readQueuedHunt, runQueueHunt } from "../hunt/queue/queue-hunt.js";
import { OWN_VERSIONS, QUEUE_NAME, versionMismatch } from "../hunt/queue/queue-job.js";
import { type QueueAddress, RedisLink } from "../hunt/queue/redis-link.js";
import { HuntReporter } from "./hunt-reporter.js";
import { UsageError } from "./usage-error.js";

/** A hunt as the command line describes it, before it gets an id on the queue. */
export type HuntRequest = Omit<QueuedHunt, "huntId" | "createdAt" | "versions">;

const say = (line: string) => process.stderr.write(`kcsim hunt: ${line}\n`);

/** Collects a queued hunt's results through the same reporter as a local hunt: failure directories, progress, summary or --json. */
async function collect(link: RedisLink, hunt: QueuedHunt, json: boolean): Promise<number> {
  say(
    `hunt ${hunt.huntId}: seeds ${hunt.fromSeed}..${hunt.toSeed} of ${hunt.label} on ${link.address.shown} (queue ${QUEUE_NAME}); ` +
      `reattach with: pnpm kcsim hunt --queue ${link.address.shown} --resume ${hunt.huntId}`,
  );
  const reporter = new HuntReporter({
    label: hunt.label,
    seeds: [{ from: hunt.fromSeed, to: hunt.toSeed }],
    shard: null,
    total: hunt.toSeed - hunt.fromSeed + 1,
    outDir: hunt.outDir,
    json,
    startedAt: hunt.createdAt,
  });
  const outcome = await runQueueHunt({ link, hunt, onResult: (result, done, seen) => reporter.onResult(result, done, seen) });
  return reporter.finish(outcome, {
    queue: { huntId: hunt.huntId, workersSeen: outcome.workersSeen, retried: outcome.retried, seeds: outcome.seeds },
  });
}

/** `kcsim hunt ... --queue URL`: puts one job per seed on the queue for `kcsim worker`s, and reports as a local hunt would. */
export async function submitQueueHunt(address: QueueAddress, request: HuntRequest, json: boolean): Promise<number> {
  const link = new RedisLink(address, say);
  try {
    return await collect(link, { ...request, huntId: newHuntId(), createdAt: Date.now(), versions: OWN_VERSIONS }, json);
  } finally {
    await link.close();
  }
}

/** `kcsim hunt --queue URL --resume ID`: reattaches to a hunt whose submitting command was stopped, and reports all of it. */
export async function resumeQueueHunt(address: QueueAddress, huntId: string, outDir: string | null, json: boolean): Promise<number> {
  const link = new RedisLink(address, say);
  try {
    const hunt = await readQueuedHunt(link, huntId);
    if (hunt === null)
      throw new UsageError(`hunt: --resume: no hunt '${huntId}' on ${address.shown} (a finished hunt leaves nothing behind)`);
    const mismatch = versionMismatch(hunt.versions, "this kcsim");
    if (mismatch !== null) throw new UsageError(`hunt: --resume: cannot take over hunt '${huntId}': ${mismatch}`);
    return await collect(link, outDir === null ? hunt : { ...hunt, outDir }, json);
  } finally {
    await link.close();
  }
}
