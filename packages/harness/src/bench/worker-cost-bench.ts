import { readFileSync } from "node:fs";
import { freemem } from "node:os";
import { LockstepHost } from "../hosts/lockstep/lockstep-host.js";
import type { LockstepShardControl } from "../hosts/lockstep/shard-protocol.js";
import { WorkerHandle } from "../hosts/worker/worker-handle.js";
import { entryPoint } from "../kernel/built-module.js";
import { benchCount } from "./bench-setting.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { round } from "./bench-suite.js";
import { pingPongGroup } from "./ping-pong-group.js";

const MB = 1024 * 1024;

/** Spawns `count` workers at once; resolves with each one's time to ready (modules loaded, control plane answering). */
async function spawnReady(count: number): Promise<{ handles: WorkerHandle<LockstepShardControl>[]; readyMs: number[] }> {
  const handles: WorkerHandle<LockstepShardControl>[] = [];
  const readyMs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const started = performance.now();
      const handle = new WorkerHandle<LockstepShardControl>(entryPoint("lockstep-worker"), `cost-${i}`, {}, () => {});
      handles.push(handle);
      await handle.call((control) => control.ping(), 120_000);
      return performance.now() - started;
    }),
  );
  return { handles, readyMs };
}

/** Memory mappings of this process (each worker's isolate adds ~120; the kernel caps them at vm.max_map_count). */
function memoryMaps(): number {
  try {
    return readFileSync("/proc/self/maps", "utf8").split("\n").length;
  } catch {
    return 0;
  }
}

function maxMapCount(): number | null {
  try {
    return Number(readFileSync("/proc/sys/vm/max_map_count", "utf8").trim());
  } catch {
    return null;
  }
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/** Whether a lockstep group of `actors` ping-pong actors, one per worker, runs to the end with every pinger answered. */
async function groupRuns(
  actors: number,
): Promise<{ ok: boolean; startMs: number; runMs: number; rssMb: number; maps: number; error?: string }> {
  const spec = pingPongGroup(actors, 200, true);
  const host = new LockstepHost(spec, { actorsPerWorker: 1, history: { keepEvents: true } });
  try {
    const t0 = performance.now();
    await host.start();
    const rssMb = process.memoryUsage().rss / MB;
    const t1 = performance.now();
    await host.runUntil(spec.durationUs);
    const runMs = performance.now() - t1;
    const maps = memoryMaps();
    const answered = new Set(host.core.history.log.toArray().flatMap((e) => (e.ev === "obs" && e.o.type === "ping.pong" ? [e.actor] : [])));
    return { ok: answered.size === actors / 2, startMs: t1 - t0, runMs, rssMb, maps };
  } catch (error) {
    return {
      ok: false,
      startMs: 0,
      runMs: 0,
      rssMb: process.memoryUsage().rss / MB,
      maps: memoryMaps(),
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    await host.close();
  }
}

export const workerCostBench: BenchSuite = {
  name: "worker-cost",
  description: "what a worker thread costs here: start time, memory, and the largest one-actor-per-worker group",
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    const single: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { handles, readyMs } = await spawnReady(1);
      single.push(readyMs[0] as number);
      await Promise.all(handles.map((h) => h.terminate()));
    }
    rows.push({
      suite: this.name,
      case: "start one worker (to ready)",
      value: round(median(single), 3),
      unit: "ms",
      note: "median of 5; modules loaded, control plane answering",
    });
    const before = process.memoryUsage().rss;
    const mapsBefore = memoryMaps();
    const burst = await spawnReady(16);
    const perWorker = (process.memoryUsage().rss - before) / 16 / MB;
    const mapsPerWorker = (memoryMaps() - mapsBefore) / 16;
    const maxMaps = maxMapCount();
    rows.push({
      suite: this.name,
      case: "start 16 workers at once",
      value: round(Math.max(...burst.readyMs), 3),
      unit: "ms",
      note: `until the last is ready (median ${Math.round(median(burst.readyMs))} ms)`,
    });
    rows.push({
      suite: this.name,
      case: "memory per idle worker",
      value: round(perWorker, 3),
      unit: "MB",
      note: `process RSS growth / 16 workers; ${Math.round(mapsPerWorker)} memory mappings each${maxMaps === null ? "" : `: vm.max_map_count ${maxMaps} allows about ${Math.floor(maxMaps / mapsPerWorker)} idle workers`}`,
    });
    await Promise.all(burst.handles.map((h) => h.terminate()));

    // Growing until a group fails or would not fit. Past ~400 running workers vm.max_map_count bites first,
    // and not gracefully: when the process runs out of memory mappings V8 aborts it (measured: 448 running
    // workers took the bench down at 65,529 mappings). So a group that would need more mappings than the
    // kernel allows, at the rate the previous group used them, is not tried.
    const limit = benchCount("KCSIM_BENCH_MAX_GROUP", 1024);
    let largest: { actors: number; startMs: number; runMs: number; rssMb: number; maps: number } | null = null;
    let stop = `stopped at the limit (KCSIM_BENCH_MAX_GROUP=${limit})`;
    let mapsPerRunningWorker = mapsPerWorker;
    const baseMaps = memoryMaps();
    for (const actors of [64, 128, 256, 320, 384, 416, 448, 512, 768, 1024].filter((n) => n <= limit)) {
      if (actors * perWorker * 1.5 > freemem() / MB) {
        stop = `${actors} would not fit in free memory`;
        break;
      }
      const mapsNeeded = baseMaps + actors * mapsPerRunningWorker * 1.05;
      if (maxMaps !== null && mapsNeeded > maxMaps) {
        stop = `${actors} would need ~${Math.round(mapsNeeded)} memory mappings (${Math.round(mapsPerRunningWorker)} per running worker), over vm.max_map_count ${maxMaps}`;
        break;
      }
      const outcome = await groupRuns(actors);
      // Progress on stderr: the whole climb takes tens of minutes on a loaded machine.
      process.stderr.write(
        `worker-cost: ${actors} actors, one per worker: ${outcome.ok ? "ran" : `FAILED${outcome.error === undefined ? "" : ` (${outcome.error})`}`}; started in ${Math.round(outcome.startMs)} ms, ran in ${Math.round(outcome.runMs)} ms, RSS ${Math.round(outcome.rssMb)} MB, ${outcome.maps} memory mappings\n`,
      );
      if (!outcome.ok) {
        stop = `${actors} failed${outcome.error === undefined ? " (a pinger got no pong)" : `: ${outcome.error}`}`;
        break;
      }
      mapsPerRunningWorker = Math.max(mapsPerWorker, (outcome.maps - baseMaps) / actors);
      largest = { actors, ...outcome };
    }
    rows.push({
      suite: this.name,
      case: "largest group, one actor per worker",
      value: largest?.actors ?? 0,
      unit: "actors",
      note:
        largest === null
          ? stop
          : `lockstep ping-pong, 200 ms virtual: workers started in ${Math.round(largest.startMs)} ms, ran in ${Math.round(largest.runMs)} ms, RSS ${Math.round(largest.rssMb)} MB, ${largest.maps} memory mappings; ${stop}`,
    });
    return rows;
  },
};
