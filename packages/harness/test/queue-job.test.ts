import { describe, expect, it } from "vitest";
import { huntCommand } from "../src/cli/commands/hunt.js";
import { workerCommand } from "../src/cli/commands/worker.js";
import { queueFlag } from "../src/cli/queue-flag.js";
import { shardFlag } from "../src/cli/shard-flag.js";
import { UsageError } from "../src/cli/usage-error.js";
import { EMPTY_SIGNATURE } from "../src/hunt/failure-signature.js";
import type { HuntRunResult } from "../src/hunt/hunt-task.js";
import { fromQueued, jobIdOf, OWN_VERSIONS, seedOfJob, toQueued, versionMismatch } from "../src/hunt/queue/queue-job.js";
import { bullmqErrorLine, isConnectionError } from "../src/hunt/queue/redis-link.js";

/** The pieces of queue hunting that need no Redis (the end-to-end tests with a real redis-server: queue-hunt.test.ts). */
describe("queue jobs", () => {
  it("accepts a job only from the same kcsim, wire protocol and history format", () => {
    expect(versionMismatch(OWN_VERSIONS)).toBeNull();
    const other = OWN_VERSIONS.historyFormat + 1;
    expect(versionMismatch({ ...OWN_VERSIONS, historyFormat: other })).toBe(
      `it was submitted by kcsim ${OWN_VERSIONS.kcsim}, protocol ${OWN_VERSIONS.protocol}, history format ${other}; this worker is kcsim ${OWN_VERSIONS.kcsim}, protocol ${OWN_VERSIONS.protocol}, history format ${OWN_VERSIONS.historyFormat}`,
    );
    expect(versionMismatch({ ...OWN_VERSIONS, protocol: "0" })).toMatch(/by kcsim [^,]+, protocol 0, /);
    expect(versionMismatch({ ...OWN_VERSIONS, kcsim: "0.0.9" }, "this kcsim")).toMatch(
      /submitted by kcsim 0\.0\.9.*; this kcsim is kcsim /,
    );
  });

  it("names each job by hunt and seed, and reads the seed back only from its own hunt's jobs", () => {
    expect(jobIdOf("3f9a0c21", 17)).toBe("3f9a0c21-17");
    expect(seedOfJob("3f9a0c21", "3f9a0c21-17")).toBe(17);
    expect(seedOfJob("3f9a0c21", "3f9a0c2-17")).toBeNull();
    expect(seedOfJob("3f9a", "3f9a0c21-17")).toBeNull();
  });

  it("carries a failing run's history gzipped and gives it back byte for byte", () => {
    const history = `${Array.from({ length: 2000 }, (_, i) => JSON.stringify({ t: i, ev: "obs" })).join("\n")}\n`;
    const run: HuntRunResult = {
      seed: 3,
      historyHash: "h",
      failures: [{ check: "single-owner", t: 1, message: "m", signature: EMPTY_SIGNATURE }],
      parameters: {},
      scenario: { name: "s", durationMs: 1 } as HuntRunResult["scenario"],
      virtualMs: 1,
      wallMs: 1,
      history,
    };
    const queued = toQueued(run);
    expect(queued).not.toHaveProperty("history");
    expect((queued.historyGzip ?? "").length).toBeLessThan(history.length / 5);
    expect(fromQueued(JSON.parse(JSON.stringify(queued)))).toEqual(run);
    const { history: _, ...passing } = run;
    expect(toQueued(passing)).toEqual(passing);
  });

  it("tells a dropped connection (ioredis reconnects) from an error worth a line", () => {
    expect(isConnectionError(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isConnectionError(new Error("Connection is closed."))).toBe(true);
    expect(isConnectionError(new Error("Missing lock for job x-1. moveToFinished"))).toBe(false);
  });

  it("says in words what BullMQ's errors about a lost job mean, and nothing for a dropped connection", () => {
    expect(bullmqErrorLine(new Error("Connection is closed."))).toBeNull();
    const taken =
      "this worker lost its lock on it (it stalled and went to another worker, or Redis restarted); the run that holds it now reports it";
    expect(bullmqErrorLine(new Error("Missing lock for job ab12-7. moveToFinished"))).toBe(`job ab12-7: ${taken}`);
    expect(bullmqErrorLine(new Error("Lock mismatch for job ab12-7. Cmd moveToFinished from active"))).toBe(`job ab12-7: ${taken}`);
    expect(bullmqErrorLine(new Error("Job ab12-7 is not in the active state. moveToFinished"))).toBe(`job ab12-7: ${taken}`);
    expect(bullmqErrorLine(new Error("Missing key for job ab12-7. moveToFinished"))).toBe(
      "job ab12-7: Redis no longer holds it (it restarted without its data); the hunt adds it again and that run reports it",
    );
    expect(bullmqErrorLine(new Error("ERR something else\n    at stack"))).toBe("queue: ERR something else");
  });
});

describe("queue and shard flags", () => {
  const usage = (f: () => unknown) => {
    try {
      f();
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      return (error as Error).message;
    }
    throw new Error("expected a UsageError");
  };

  it("takes redis:// and rediss:// URLs with an optional database, and hides a password when it shows one", () => {
    expect(queueFlag("hunt", undefined)).toBeNull();
    expect(queueFlag("hunt", "redis://127.0.0.1:6379")).toEqual({ url: "redis://127.0.0.1:6379", shown: "redis://127.0.0.1:6379" });
    expect(queueFlag("hunt", "redis://10.0.0.5:6380/2")).toEqual({ url: "redis://10.0.0.5:6380/2", shown: "redis://10.0.0.5:6380/2" });
    expect(queueFlag("hunt", "rediss://:s3cret@redis.example:6380")).toEqual({
      url: "rediss://:s3cret@redis.example:6380",
      shown: "rediss://:***@redis.example:6380",
    });
    expect(usage(() => queueFlag("hunt", "localhost:6379"))).toBe(
      "hunt: --queue must be redis://HOST:PORT[/DB], got 'localhost:6379' (the scheme is localhost)",
    );
    expect(usage(() => queueFlag("worker", "redis://h:1/db"))).toMatch(/^worker: --queue .*\(the database must be a number\)$/);
    expect(usage(() => queueFlag("hunt", "not a url"))).toMatch(/\(not a URL\)$/);
  });

  it("takes --shard I/N with 1 <= I <= N", () => {
    expect(shardFlag("hunt", undefined)).toBeNull();
    expect(shardFlag("hunt", "2/3")).toEqual({ index: 2, count: 3 });
    for (const bad of ["0/3", "4/3", "1/0", "1", "a/b", "-1/2"])
      expect(usage(() => shardFlag("hunt", bad))).toBe(`hunt: --shard must be I/N with 1 <= I <= N, got '${bad}'`);
  });

  it("refuses flags that do not go together, before connecting to anything", async () => {
    const scenario = "packages/harness/test/fixtures/fenced-pair.json";
    const cases: [() => Promise<number>, RegExp][] = [
      [() => huntCommand(["--resume", "abc"]), /^hunt: --resume needs --queue/],
      [
        () => huntCommand(["--queue", "redis://127.0.0.1:1", "--resume", "abc", "--seeds", "1..3"]),
        /only --out and --json go with it, not --seeds$/,
      ],
      [() => huntCommand([scenario, "--queue", "redis://127.0.0.1:1", "--resume", "abc"]), /not 'packages\/harness/],
      [() => huntCommand([scenario, "--queue", "redis://127.0.0.1:1", "--shard", "1/2"]), /^hunt: --shard splits a local hunt/],
      [() => huntCommand([scenario, "--queue", "redis://127.0.0.1:1", "--workers", "2"]), /^hunt: --workers sizes a local pool/],
      [
        () => workerCommand(["--queue", "redis://127.0.0.1:1", "--lock-ms", "5"]),
        /^worker: --lock-ms must be an integer >= 1000, got '5'$/,
      ],
      [() => workerCommand(["--queue", "redis://127.0.0.1:1", "extra"]), /^worker: unexpected argument 'extra'$/],
    ];
    for (const [run, message] of cases) await expect(run()).rejects.toThrow(message);
  });
});
