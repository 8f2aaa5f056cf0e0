import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { InlineHost } from "../hosts/inline-host.js";
import { LockstepHost } from "../hosts/lockstep/lockstep-host.js";
import type { LockstepTransport } from "../hosts/lockstep/shard-protocol.js";
import type { ActorsPerWorker } from "../hosts/worker/shard-plan.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { toSimulationSpec, validateScenario } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { inTurn, median, round } from "./bench-suite.js";
import { runScenarioCpu } from "./child-cpu.js";
import { pingPongGroup } from "./ping-pong-group.js";

const ACTORS = 100;
const VIRTUAL_MS = 1_000;

interface LockstepTiming {
  readonly startMs: number;
  readonly runMs: number;
  readonly windows: number;
  readonly workers: number;
  readonly hash: string;
}

const GROUP_MEMBERS = 100;
const GROUP_VIRTUAL_MS = 30_000;

/** A KIP-848 consumer group of 100 members (and its coordinator) joining and consuming 200 partitions. */
function consumerGroup(): SimulationSpec {
  return toSimulationSpec(consumerGroupScenario(), { seed: 1 });
}

function consumerGroupScenario(): ScenarioFile {
  return validateScenario(
    {
      name: `bench-group-${GROUP_MEMBERS}`,
      description: `${GROUP_MEMBERS} KIP-848 members join one group and consume 200 synthetic partitions`,
      seed: 1,
      durationMs: GROUP_VIRTUAL_MS,
      cluster: { coordinators: 1, topics: [{ name: "T1", partitions: 200 }] },
      groups: [
        {
          groupId: "g1",
          protocol: "consumer",
          members: GROUP_MEMBERS,
          subscription: ["T1"],
          staggerMs: 50,
          app: { processingMsPerRecord: 1 },
          source: { kind: "synthetic", recordsPerSecondPerPartition: 10 },
        },
      ],
    },
    "bench",
  );
}

const COLD_PAIRS = 5;

/**
 * The 100-member group run cold in fresh processes, inline and lockstep with auto shards, five pairs in a
 * row, the side that goes first alternating: each pair's ratio of wall times (from the run's start to its
 * verdict, worker start included, process start not) and their median, each with `kcsim run`'s V8 settings
 * (a lockstep host's workers share their process's). Both sides compile their code from
 * scratch (the lockstep worker always does), and a pair sees the same machine, which a single run of each on
 * this shared machine does not; alternating keeps a machine that speeds up or slows down over the pairs from
 * favouring one side (three pairs, inline first, read 2.56 to 3.42x in one run).
 */
async function coldPairs(): Promise<{ pairs: { inline: number; lockstep: number }[]; sameHash: boolean }> {
  const dir = mkdtempSync(join(tmpdir(), "kcsim-lockstep-bench-"));
  try {
    const path = join(dir, "group.json");
    writeFileSync(path, JSON.stringify(consumerGroupScenario()));
    const pairs: { inline: number; lockstep: number }[] = [];
    let sameHash = true;
    for (let pair = 0; pair < COLD_PAIRS; pair++) {
      const [inline, lockstep] = await inTurn(
        pair,
        () => runScenarioCpu("one-run", [path], "lockstep: inline, cold"),
        () => runScenarioCpu("one-run", [path, "--lockstep"], "lockstep: lockstep auto, cold"),
      );
      sameHash &&= inline.historyHash === lockstep.historyHash;
      pairs.push({ inline: inline.wallMs, lockstep: lockstep.wallMs });
    }
    return { pairs, sameHash };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** "1 worker", "2 workers". */
const workersOf = (timing: LockstepTiming): string => `${timing.workers} worker${timing.workers === 1 ? "" : "s"}`;

async function lockstep(
  actorsPerWorker: ActorsPerWorker,
  transport: LockstepTransport,
  spec: SimulationSpec = pingPongGroup(ACTORS, VIRTUAL_MS),
): Promise<LockstepTiming> {
  const host = new LockstepHost(spec, { actorsPerWorker, transport, history: { keepEvents: false } });
  try {
    const t0 = performance.now();
    await host.start();
    const t1 = performance.now();
    await host.runUntil(spec.durationUs);
    const t2 = performance.now();
    return { startMs: t1 - t0, runMs: t2 - t1, windows: host.windows, workers: host.workerCount, hash: host.core.history.finish() };
  } finally {
    await host.close();
  }
}

export const lockstepBench: BenchSuite = {
  name: "lockstep",
  description: `lockstep wall time vs inline, ${ACTORS} ping-pong actors, ${VIRTUAL_MS} ms of virtual time (same history hash)`,
  async run(): Promise<BenchRow[]> {
    const spec = pingPongGroup(ACTORS, VIRTUAL_MS);
    new InlineHost(spec, DEFAULT_REGISTRY, { history: { keepEvents: false } }).run(); // warm-up
    const inline = new InlineHost(spec, DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
    const rows: BenchRow[] = [
      {
        suite: this.name,
        case: `inline, ${ACTORS} actors`,
        value: round(inline.wallMs, 3),
        unit: "ms",
        note: `${inline.eventsProcessed} events`,
      },
    ];
    const cores = availableParallelism();
    const cases: [string, ActorsPerWorker, LockstepTransport][] = [
      [`1 actor per worker (${ACTORS} workers), shared memory`, 1, "shared"],
      [`1 actor per worker (${ACTORS} workers), postMessage`, 1, "port"],
      ["auto shards, shared memory", "auto", "shared"],
      [`${cores} workers (one per core), shared memory`, Math.ceil(ACTORS / cores), "shared"],
      [`${cores} workers (one per core), postMessage`, Math.ceil(ACTORS / cores), "port"],
    ];
    for (const [label, perWorker, transport] of cases) {
      const timing = await lockstep(perWorker, transport);
      const same = timing.hash === inline.historyHash ? "same hash" : "HASH DIFFERS";
      rows.push({
        suite: this.name,
        case: `lockstep, ${label}`,
        value: round(timing.runMs, 3),
        unit: "ms",
        note: `${round(timing.runMs / inline.wallMs, 2)}x inline; ${timing.windows} windows (${round((timing.runMs * 1000) / timing.windows, 2)} us each); ${workersOf(timing)} started in ${Math.round(timing.startMs)} ms; ${same}`,
      });
    }
    // The same comparison on a real protocol group: 100 consumer members and their coordinator.
    const group = consumerGroup();
    const groupInline = new InlineHost(group, DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
    rows.push({
      suite: this.name,
      case: `inline, ${GROUP_MEMBERS}-member consumer group`,
      value: round(groupInline.wallMs, 3),
      unit: "ms",
      note: `${groupInline.eventsProcessed} events, ${GROUP_VIRTUAL_MS / 1000} s virtual, 200 partitions`,
    });
    const groupCases: [string, ActorsPerWorker][] = [
      ["auto shards", "auto"],
      [`1 actor per worker (${group.actors.length} workers)`, 1],
    ];
    for (const [label, perWorker] of groupCases) {
      const timing = await lockstep(perWorker, "shared", group);
      rows.push({
        suite: this.name,
        case: `lockstep, ${GROUP_MEMBERS}-member consumer group, ${label}, shared memory`,
        value: round(timing.runMs, 3),
        unit: "ms",
        note: `${round(timing.runMs / groupInline.wallMs, 2)}x inline; ${timing.windows} windows; ${workersOf(timing)} started in ${Math.round(timing.startMs)} ms; ${timing.hash === groupInline.historyHash ? "same hash" : "HASH DIFFERS"}`,
      });
    }
    const cold = await coldPairs();
    const ratios = cold.pairs.map((p) => p.lockstep / p.inline);
    const list = (values: readonly number[], decimals: number) => values.map((v) => v.toFixed(decimals)).join(" / ");
    rows.push({
      suite: this.name,
      case: `${GROUP_MEMBERS}-member consumer group: lockstep auto / inline, cold processes, median of ${COLD_PAIRS} pairs`,
      value: Number(median(ratios).toFixed(2)),
      unit: "x",
      note: `pairs run one after the other (inline first, then lockstep first, alternating), each a fresh process (run to verdict, worker start included): ${list(ratios, 2)}x; inline ${list(
        cold.pairs.map((p) => p.inline),
        0,
      )} ms, lockstep ${list(
        cold.pairs.map((p) => p.lockstep),
        0,
      )} ms; ${cold.sameHash ? "same hash" : "HASH DIFFERS"}`,
    });
    return rows;
  },
};
