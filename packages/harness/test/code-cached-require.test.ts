import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { afterAll, describe, expect, it } from "vitest";
import { RealtimeHost } from "../src/hosts/realtime/realtime-host.js";
import type { HuntRunResult, HuntTask } from "../src/hunt/hunt-task.js";
import { codeCacheFile, kcsimCodeCacheFile } from "../src/run/code-cached-require.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile, toSimulationSpec } from "../src/scenario/load-scenario.js";

/** The built module: the cache is written when a process exits, so each load below is a process of its own. */
const BUILT = fileURLToPath(new URL("../dist/run/code-cached-require.js", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../bundle", import.meta.url));
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "kcsim-code-cache-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A CommonJS file that uses what Node's wrapper gives it, and a function compiled only when called. */
const LIBRARY = `
const { basename } = require("node:path");
function later(n) { let sum = 0; for (let i = 0; i < n; i++) sum += i; return sum; }
module.exports = { name: basename(__filename), dir: basename(__dirname), sum: later(10), self: this === exports };
`;

/** Loads `file` with its cache in a fresh process; prints what it exported and what became of the cache. */
function load(file: string, cacheFile: string, v8Flags: readonly string[] = []): { exports: unknown; cache: string } {
  const script = `
    import(${JSON.stringify(BUILT)}).then(({ requireWithCodeCache }) => {
      const loaded = requireWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(cacheFile)});
      process.once("exit", loaded.saveCache);
      console.log(JSON.stringify({ exports: loaded.exports, cache: loaded.cache }));
    });`;
  const child = spawnSync(process.execPath, [...v8Flags, "-e", script], { encoding: "utf8" });
  expect(child.stderr).toBe("");
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as { exports: unknown; cache: string };
}

describe("requireWithCodeCache", () => {
  const dir = join(work, "lib");
  mkdirSync(dir);
  const file = join(dir, "library.cjs");
  writeFileSync(file, LIBRARY);
  const expected = { name: "library.cjs", dir: "lib", sum: 45, self: true };

  it("loads a CommonJS file as Node does, writes its cache at exit, and V8 takes it the next time", () => {
    const cacheFile = codeCacheFile(file, "test", []);
    expect(load(file, cacheFile)).toEqual({ exports: expected, cache: "absent" });
    expect(existsSync(cacheFile)).toBe(true);
    expect(load(file, cacheFile)).toEqual({ exports: expected, cache: "accepted" });
    // No temporary file is left behind.
    expect(readdirSync(dirname(cacheFile))).toEqual([cacheFile.slice(dirname(cacheFile).length + 1)]);
  });

  it("a cache made under other V8 flags is rejected and written again", () => {
    const cacheFile = join(work, "flags.v8");
    expect(load(file, cacheFile).cache).toBe("absent");
    expect(load(file, cacheFile, ["--no-opt"])).toEqual({ exports: expected, cache: "rejected" });
    expect(load(file, cacheFile, ["--no-opt"]).cache).toBe("accepted");
  });

  it("a cache it cannot write is no error: every load compiles", () => {
    // Its directory would be a regular file: no one can make it, root included.
    const blocker = join(work, "not-a-directory");
    writeFileSync(blocker, "");
    const cacheFile = join(blocker, "cache.v8");
    expect(load(file, cacheFile)).toEqual({ exports: expected, cache: "absent" });
    expect(load(file, cacheFile).cache).toBe("absent");
  });

  it("names a cache per version of the file: a file rewritten at the same length gets a cache of its own", () => {
    const versioned = join(work, "versioned.cjs");
    writeFileSync(versioned, "module.exports = 1;");
    utimesSync(versioned, 1_000, 1_000);
    const before = codeCacheFile(versioned, "run", []);
    expect(codeCacheFile(versioned, "run", [])).toBe(before);
    writeFileSync(versioned, "module.exports = 2;");
    utimesSync(versioned, 2_000, 2_000);
    expect(codeCacheFile(versioned, "run", [])).not.toBe(before);
    expect(dirname(codeCacheFile(versioned, "run", []))).toBe(dirname(before));
  });

  it("names a cache per file, purpose and V8 settings", () => {
    const a = codeCacheFile("/b/cli.cjs", "run", ["--x"]);
    expect(dirname(a)).toBe("/b/.cache");
    expect(codeCacheFile("/b/cli.cjs", "run", ["--x"])).toBe(a);
    expect(codeCacheFile("/b/cli.cjs", "hunt", ["--x"])).not.toBe(a);
    expect(codeCacheFile("/b/cli.cjs", "run", ["--y"])).not.toBe(a);
    expect(codeCacheFile("/b/other.cjs", "run", ["--x"])).not.toBe(a);
    expect(codeCacheFile("/b/cli.cjs", "../../etc", [])).toMatch(/^\/b\/\.cache\/cli\.cjs\.______etc\.[0-9a-f]{12}\.v8$/);
  });
});

describe("the kcsim command from the bundle", () => {
  it("runs a command from cli.cjs with a code cache of its own, and the cached run is the same run", () => {
    // The child: no node flags of its own, this process's environment.
    const cacheFile = kcsimCodeCacheFile(join(BUNDLE, "cli.cjs"), "run", [], process.env);
    rmSync(cacheFile, { force: true });
    const run = () =>
      spawnSync(process.execPath, [join(BUNDLE, "cli.js"), "run", "scenarios/ping-pong.json", "--json"], { cwd: ROOT, encoding: "utf8" });
    const first = run();
    expect(first.status).toBe(0);
    expect(existsSync(cacheFile)).toBe(true);
    const second = run();
    expect(second.status).toBe(0);
    const hash = (stdout: string) => (JSON.parse(stdout) as { historyHash: string }).historyHash;
    expect(hash(second.stdout)).toBe(hash(first.stdout));
  }, 60_000);

  it("keeps no code cache for a command that does not exist (a mistyped one says so and leaves nothing behind)", () => {
    const mistyped = `nosuch-${process.pid}`;
    const cacheFile = kcsimCodeCacheFile(join(BUNDLE, "cli.cjs"), mistyped, [], process.env);
    const out = spawnSync(process.execPath, [join(BUNDLE, "cli.js"), mistyped], { cwd: ROOT, encoding: "utf8" });
    expect(out.status).toBe(2);
    expect(out.stderr).toBe(`kcsim: unknown command '${mistyped}' (try --help)\n`);
    expect(existsSync(cacheFile)).toBe(false);
  });

  it("imports ES modules from code compiled from another process's cache (pino for the actor logs)", () => {
    // Node 20 restores no import() callback for such code: the loaded file imports through the loader's hook.
    const cacheFile = kcsimCodeCacheFile(join(BUNDLE, "cli.cjs"), "run", [], process.env);
    rmSync(cacheFile, { force: true });
    const logs = mkdtempSync(join(work, "logs-"));
    const run = () =>
      spawnSync(process.execPath, [join(BUNDLE, "cli.js"), "run", "scenarios/ping-pong.json", "--log-level", "info", "--out", logs], {
        cwd: ROOT,
        encoding: "utf8",
      });
    expect(run().status).toBe(0);
    expect(existsSync(cacheFile)).toBe(true);
    const cached = run();
    expect(cached.stderr).toBe("");
    expect(cached.status).toBe(0);
    expect(readdirSync(join(logs, "logs")).length).toBeGreaterThan(0);
  }, 60_000);
});

describe("a hunt pool's worker from the bundle", () => {
  it("runs seeds from hunt-worker.cjs and writes its code cache once its first seed is done", async () => {
    const cacheFile = kcsimCodeCacheFile(join(BUNDLE, "hunt-worker.cjs"), "hunt-worker", [], process.env);
    rmSync(cacheFile, { force: true });
    const base = loadScenarioFile(join(ROOT, "scenarios", "session-timeout.json"));
    const pool = new Piscina<HuntTask, HuntRunResult>({
      filename: join(BUNDLE, "hunt-worker.js"),
      minThreads: 1,
      maxThreads: 1,
      execArgv: [],
    });
    try {
      // Seed 3 fails (the retransmitted commit), so its history is recorded and hashed.
      const first = await pool.run({ base, seed: 3, asWritten: false, protocol: null });
      expect(existsSync(cacheFile)).toBe(true);
      expect(first.failures.length).toBeGreaterThan(0);
      expect(first.historyHash).toMatch(/^[0-9a-f]{64}$/);
      const again = await pool.run({ base, seed: 3, asWritten: false, protocol: null });
      expect(again.historyHash).toBe(first.historyHash);
    } finally {
      await pool.destroy();
    }
  }, 60_000);
});

describe("a lockstep host's worker from the bundle", () => {
  it("runs its shard from lockstep-worker.cjs and writes its code cache when the host closes", async () => {
    const cacheFile = kcsimCodeCacheFile(join(BUNDLE, "lockstep-worker.cjs"), "lockstep-worker", [], process.env);
    rmSync(cacheFile, { force: true });
    const scenario = loadScenarioFile(join(ROOT, "scenarios", "m10-join.json"));
    const options = { host: "lockstep", seed: 1, hostOptions: { actorsPerWorker: "auto" } } as const;
    const { summary: first } = await runScenario(scenario, options);
    expect(existsSync(cacheFile)).toBe(true);
    expect(Object.values(first.checks).every((check) => check.ok)).toBe(true);
    // The second run's worker compiles from the cache, and must run the same history.
    const { summary: again } = await runScenario(scenario, options);
    expect(again.historyHash).toBe(first.historyHash);
    expect(again.historyHash).toBe((await runScenario(scenario, { host: "inline", seed: 1 })).summary.historyHash);
  }, 60_000);
});

describe("a realtime host's workers from the bundle", () => {
  it("run their shards from realtime-worker.cjs and write its code cache when the run ends", async () => {
    const cacheFile = kcsimCodeCacheFile(join(BUNDLE, "realtime-worker.cjs"), "realtime-worker", [], process.env);
    rmSync(cacheFile, { force: true });
    const spec = { ...toSimulationSpec(loadScenarioFile(join(ROOT, "scenarios", "m10-join.json")), { seed: 1 }), durationUs: 5_000_000 };
    const run = async () => {
      const result = await new RealtimeHost(spec, { timeScale: 0.5 }).run();
      // Members joined the group: the shards ran the consumer and coordinator code loaded from the file.
      const stable = result.events.filter((e) => e.ev === "obs" && e.o.type === "member.state" && e.o.to === "STABLE");
      expect(stable.length).toBeGreaterThan(0);
    };
    await run();
    expect(existsSync(cacheFile)).toBe(true);
    // The next run's workers compile from the cache and run the same actors.
    await run();
  }, 60_000);
});
