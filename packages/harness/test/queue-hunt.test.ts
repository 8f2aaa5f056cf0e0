import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { KcsimProcess, kcsimRun, root } from "../src/bench/kcsim-process.js";
import { freePort, RedisServer } from "../src/bench/redis-server.js";
import { OWN_VERSIONS, QUEUE_NAME } from "../src/hunt/queue/queue-job.js";
import { expectRecordedHistory } from "./failure-dir-checks.js";

/**
 * Hunting on a BullMQ queue, end to end: a real redis-server (Debian's,
 * started here on a free loopback port without persistence and killed
 * after), real `kcsim worker` processes and a real `kcsim hunt --queue`.
 * The scenario is cheap (about 0.1 s a run) and the planted bug
 * keep-partitions-after-fenced makes about a third of the seeds fail.
 */
const SCENARIO = join(root, "packages/harness/test/fixtures/fenced-pair.json");
const BUG = "keep-partitions-after-fenced";
/** Short locks, so a killed worker's job goes to the other worker within seconds (BullMQ's default is 30 s). */
const LOCK_MS = "4000";

interface HuntJson {
  runs: number;
  failures: { seed: number; check: string }[];
  findings: { check: string; events: string[]; roles: string[]; seeds: number[] }[];
  workers: number;
  queue?: { huntId: string; workersSeen: string[]; retried: number; seeds: number[] };
}

const started: (KcsimProcess | RedisServer)[] = [];
afterEach(async () => {
  for (const thing of started.splice(0).reverse()) await thing.kill();
});

async function redis(port?: number): Promise<RedisServer> {
  const server = new RedisServer(port ?? (await freePort()));
  started.push(server);
  await server.start();
  return server;
}

function kcsim(...args: string[]): KcsimProcess {
  const p = new KcsimProcess(args);
  started.push(p);
  return p;
}

async function worker(url: string): Promise<KcsimProcess> {
  const w = kcsim("worker", "--queue", url, "--workers", "1", "--lock-ms", LOCK_MS);
  await w.until((p) => p.stderr.includes(", queue kcsim-hunt on "), "the worker to start");
  return w;
}

const huntArgs = (seeds: string, out: string) => [SCENARIO, "--bug", BUG, "--seeds", seeds, "--keep-going", "--out", out];
const failingSeeds = (report: HuntJson) => [...new Set(report.failures.map((f) => f.seed))].sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const jobsDone = (w: KcsimProcess, huntId: string) => w.stdout.split("\n").filter((line) => line.startsWith(`hunt ${huntId} seed `)).length;
const huntIdOf = (p: KcsimProcess) => /hunt ([0-9a-f]+): seeds/.exec(p.stderr)?.[1];
const noStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

/** The same seeds hunted locally (a piscina pool of two), once per seed range. */
const localHunts = new Map<string, Promise<HuntJson>>();
function localHunt(seeds: string): Promise<HuntJson> {
  let hunt = localHunts.get(seeds);
  if (hunt === undefined) {
    const out = mkdtempSync(join(tmpdir(), "kcsim-local-hunt-"));
    hunt = kcsimRun("hunt", ...huntArgs(seeds, out), "--workers", "2", "--json").then(({ stdout }) => ({ ...JSON.parse(stdout), out }));
    localHunts.set(seeds, hunt);
  }
  return hunt;
}

describe("kcsim hunt --queue / kcsim worker (BullMQ on a real redis-server)", () => {
  it("runs 200 seeds over 2 workers, one killed mid-hunt: 200 results, each seed once, the failures of a local hunt", async () => {
    const local = await localHunt("1..200");
    expect(local.runs).toBe(200);
    // The planted bug fails a good share of the seeds (15 of 200 on the default network), the rest pass.
    expect(failingSeeds(local).length).toBeGreaterThan(10);

    const server = await redis();
    const [doomed, survivor] = await Promise.all([worker(server.url), worker(server.url)]);
    const out = mkdtempSync(join(tmpdir(), "kcsim-queue-hunt-"));
    const submit = kcsim("hunt", ...huntArgs("1..200", out), "--queue", server.url, "--json");
    await submit.until((p) => huntIdOf(p) !== undefined, "the hunt id");
    const huntId = huntIdOf(submit) as string;
    // Killed while it holds a job: its lock runs out and the survivor's stalled-job check hands that job on.
    await doomed.until((p) => jobsDone(p, huntId) >= 10, "the first worker to finish 10 runs");
    await doomed.kill("SIGKILL");
    expect(await submit.exited).toBe(1);

    const report = JSON.parse(submit.stdout) as HuntJson;
    expect(report.runs).toBe(200);
    expect(report.queue?.seeds).toEqual(range(1, 200));
    expect(report.queue?.workersSeen).toHaveLength(2);
    expect(report.queue?.retried).toBeGreaterThanOrEqual(1);
    expect(failingSeeds(report)).toEqual(failingSeeds(local));
    const signatures = (r: HuntJson) => r.findings.map(({ check, events, roles, seeds }) => ({ check, events, roles, seeds }));
    expect(signatures(report)).toEqual(signatures(local));
    // Every seed the survivor ran is logged once; with the doomed worker's, they cover all 200 (the retried one twice at most).
    expect(jobsDone(doomed, huntId) + jobsDone(survivor, huntId)).toBeGreaterThanOrEqual(200);
    // The failure directories are the local hunt's, run for run: the same history hashes.
    const localOut = (local as HuntJson & { out: string }).out;
    for (const seed of failingSeeds(local)) {
      const record = (dir: string) => JSON.parse(readFileSync(join(dir, `seed-${seed}`, "hunt.json"), "utf8")) as { historyHash: string };
      expect(record(out).historyHash).toBe(record(localOut).historyHash);
      expect(existsSync(join(out, `seed-${seed}`, "scenario.json"))).toBe(true);
    }
    noStack(submit.stderr);
    noStack(survivor.stderr);
  }, 300_000);

  it("--resume after the submitting command is killed reports the whole hunt, histories included with --history", async () => {
    const local = await localHunt("1..200");
    const server = await redis();
    const workers = await Promise.all([worker(server.url), worker(server.url)]);
    const out = mkdtempSync(join(tmpdir(), "kcsim-queue-resume-"));
    const submit = kcsim("hunt", ...huntArgs("1..100", out), "--queue", server.url, "--history", "--json");
    await submit.until((p) => huntIdOf(p) !== undefined, "the hunt id");
    const huntId = huntIdOf(submit) as string;
    await submit.until(() => workers.reduce((n, w) => n + jobsDone(w, huntId), 0) >= 10, "10 runs");
    await submit.kill("SIGKILL");
    expect(submit.stdout).toBe("");

    const resumed = kcsim("hunt", "--queue", server.url, "--resume", huntId, "--json");
    expect(await resumed.exited).toBe(1);
    const report = JSON.parse(resumed.stdout) as HuntJson;
    expect(report.runs).toBe(100);
    expect(report.queue?.seeds).toEqual(range(1, 100));
    expect(failingSeeds(report)).toEqual(failingSeeds(local).filter((seed) => seed <= 100));
    // The histories came through Redis (gzipped), each the run's own.
    for (const seed of failingSeeds(report)) expectRecordedHistory(join(out, `seed-${seed}`));
    // A finished hunt leaves nothing behind: resuming it again is bad input.
    const again = await kcsimRun("hunt", "--queue", server.url, "--resume", huntId);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(new RegExp(`^kcsim: hunt: --resume: no hunt '${huntId}' on ${server.url}`));
  }, 300_000);

  it("without --keep-going stops at the first failure, and a finished hunt leaves nothing in Redis", async () => {
    const local = await localHunt("1..200");
    const server = await redis();
    await worker(server.url);
    const out = mkdtempSync(join(tmpdir(), "kcsim-queue-stop-"));
    const args = [SCENARIO, "--bug", BUG, "--seeds", "1..200", "--out", out, "--queue", server.url, "--json"];
    const { code, stdout } = await kcsimRun("hunt", ...args);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as HuntJson;
    // The seeds still waiting were taken off the queue; the runs already taken finished and are reported.
    expect(report.runs).toBeLessThan(200);
    expect(failingSeeds(report).length).toBeGreaterThanOrEqual(1);
    expect(failingSeeds(report)).toEqual(failingSeeds(local).filter((seed) => report.queue?.seeds.includes(seed)));
    const redisClient = new Redis(server.url);
    try {
      expect(await redisClient.keys("kcsim:*")).toEqual([]);
      expect(await redisClient.keys(`bull:${QUEUE_NAME}:${report.queue?.huntId}-*`)).toEqual([]);
      expect(await redisClient.zcard(`bull:${QUEUE_NAME}:completed`)).toBe(0);
      expect(await redisClient.llen(`bull:${QUEUE_NAME}:wait`)).toBe(0);
    } finally {
      redisClient.disconnect();
    }
  }, 300_000);

  it("a worker of another kcsim version refuses the job with one line and puts it back in the queue", async () => {
    const server = await redis();
    const w = await worker(server.url);
    const queue = new Queue(QUEUE_NAME, { connection: { url: server.url, maxRetriesPerRequest: null } });
    try {
      const task = { base: null, seed: 1, asWritten: false, protocol: null };
      await queue.add(
        "run",
        { huntId: "elsewhere", versions: { kcsim: "9.9.9", protocol: "1", historyFormat: 1 }, task },
        { jobId: "elsewhere-1" },
      );
      await w.until((p) => p.stderr.includes("refused"), "the refusal");
      const own = `kcsim ${OWN_VERSIONS.kcsim}, protocol ${OWN_VERSIONS.protocol}, history format ${OWN_VERSIONS.historyFormat}`;
      expect(w.stderr).toContain(
        `kcsim worker: hunt elsewhere: refused: it was submitted by kcsim 9.9.9, protocol 1, history format 1; this worker is ${own}; its jobs go back to the queue for another worker\n`,
      );
      // Back in the queue (delayed, then waiting), never run, never failed: the worker keeps refusing it, saying so once.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(["delayed", "waiting"]).toContain(await queue.getJobState("elsewhere-1"));
      const job = await queue.getJob("elsewhere-1");
      expect(job?.returnvalue ?? null).toBeNull();
      expect(job?.failedReason ?? "").toBe("");
      expect(w.stderr.match(/refused/g)).toHaveLength(1);
      expect(w.stdout).toBe("");
    } finally {
      await queue.close();
    }
  }, 120_000);

  it("Redis unreachable at the start, then lost mid-hunt and restarted empty: one line each, no stack, no result lost", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const w = kcsim("worker", "--queue", url, "--workers", "1", "--lock-ms", LOCK_MS);
    await w.until((p) => p.stderr.includes("unreachable"), "the worker's outage line");
    // Several reconnection attempts later (0.25, 0.5, 1 s apart) it still said it once.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(w.stderr.match(/unreachable/g)).toHaveLength(1);
    expect(w.stderr).toMatch(
      new RegExp(
        `kcsim worker: Redis at ${url} unreachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\); retrying with backoff \\(up to 10 s apart\\)\n`,
      ),
    );
    const server = await redis(port);
    await w.until((p) => p.stderr.includes("reachable again"), "the worker to reconnect");

    const local = await localHunt("1..200");
    const out = mkdtempSync(join(tmpdir(), "kcsim-queue-outage-"));
    const submit = kcsim("hunt", ...huntArgs("1..100", out), "--queue", url, "--json");
    await submit.until((p) => huntIdOf(p) !== undefined, "the hunt id");
    await w.until((p) => jobsDone(p, huntIdOf(submit) as string) >= 10, "10 runs");
    // A crash of Redis without persistence: every job, result and hunt definition in it is gone when it comes back.
    await server.kill();
    await submit.until((p) => p.stderr.includes("unreachable"), "the hunt's outage line");
    await w.until((p) => p.stderr.match(/unreachable/g)?.length === 2, "the worker's second outage line");
    await server.start();
    expect(await submit.exited).toBe(1);

    const report = JSON.parse(submit.stdout) as HuntJson;
    expect(report.runs).toBe(100);
    expect(report.queue?.seeds).toEqual(range(1, 100));
    expect(failingSeeds(report)).toEqual(failingSeeds(local).filter((seed) => seed <= 100));
    for (const p of [submit, w]) {
      expect(p.stderr.match(/unreachable/g)).toHaveLength(w === p ? 2 : 1);
      expect(p.stderr.match(/reachable again/g)).toHaveLength(w === p ? 2 : 1);
      noStack(p.stderr);
    }
  }, 300_000);

  it("answers bad queue flags with one line and exit code 2 (the flag parsers' cases: queue-job.test.ts)", async () => {
    const cases: [string[], RegExp][] = [
      [
        ["hunt", SCENARIO, "--queue", "http://localhost:6379"],
        /^kcsim: hunt: --queue must be redis:\/\/HOST:PORT\[\/DB\], got 'http:\/\/localhost:6379' \(the scheme is http\)$/,
      ],
      [["worker", "--workers", "2"], /^kcsim: worker: --queue redis:\/\/HOST:PORT\[\/DB\] is required$/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await kcsimRun(...args);
      expect(code, args.join(" ")).toBe(2);
      expect(stdout).toBe("");
      expect(stderr.trimEnd()).toMatch(message);
    }
  }, 60_000);
});
