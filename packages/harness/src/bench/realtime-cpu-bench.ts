import { availableParallelism, loadavg } from "node:os";
import { FIXTURE_REGISTRY_MODULE } from "../hosts/fixtures/fixture-registry.js";
import { RealtimeHost } from "../hosts/realtime/realtime-host.js";
import type { ActorSpec, SimulationSpec } from "../kernel/simulation-spec.js";
import { DEFAULT_NETWORK } from "../router/fault-plan.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { round } from "./bench-suite.js";

const CPU_US_PER_RECORD = 200;
const VIRTUAL_MS = 3_000;

function cpuBoundSpec(crunchers: number): SimulationSpec {
  const actors: ActorSpec[] = [];
  for (let i = 0; i < crunchers; i++) {
    actors.push({ id: `cruncher-${i}`, kind: "cruncher", config: { cpuUsPerRecord: CPU_US_PER_RECORD }, startAtUs: 0 });
    actors.push({ id: `feeder-${i}`, kind: "feeder", config: { target: `cruncher-${i}`, inFlight: 32 }, startAtUs: 0 });
  }
  return {
    scenario: `bench-cpu-bound-${crunchers}`,
    seed: 1,
    durationUs: VIRTUAL_MS * 1000,
    actors,
    plan: { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] },
    nemesis: [],
    useCodec: true,
    restartPolicy: { mode: "stop" },
  };
}

/**
 * Records per second processed by `crunchers` CPU-bound actors, each in a
 * worker of its own, on the real clock. Each is fed by its own feeder with
 * 32 records in flight: a round trip takes ~2 ms of network latency at time
 * scale 1, so fewer in flight would measure latency, not CPU.
 */
async function recordsPerSecond(crunchers: number): Promise<{ rate: number; cores: number; load: number }> {
  const spec = cpuBoundSpec(crunchers);
  const host = new RealtimeHost(spec, { timeScale: 1, registryModule: FIXTURE_REGISTRY_MODULE, spareWorkers: 0 });
  const running = host.run();
  // The CPU this process actually got while the clock ran: on a shared machine, other processes' load caps it.
  await host.at(0);
  const cpu = process.cpuUsage();
  const result = await running;
  const used = process.cpuUsage(cpu);
  let records = 0;
  for (const [id, report] of Object.entries(result.actors)) {
    if (id.startsWith("cruncher-")) records += (report.snapshot as { records?: number } | null)?.records ?? 0;
  }
  return { rate: records / (VIRTUAL_MS / 1000), cores: (used.user + used.system) / 1000 / VIRTUAL_MS, load: loadavg()[0] ?? 0 };
}

export const realtimeCpuBench: BenchSuite = {
  name: "realtime-cpu",
  description: `realtime host: records/s with ${CPU_US_PER_RECORD} us of real CPU per record, 1, 2 and 4 CPU-bound actors (one worker each)`,
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    let one = 0;
    for (const crunchers of [1, 2, 4]) {
      const { rate, cores, load } = await recordsPerSecond(crunchers);
      if (crunchers === 1) one = rate;
      rows.push({
        suite: this.name,
        case: `${crunchers} CPU-bound actor${crunchers > 1 ? "s" : ""}`,
        value: Math.round(rate),
        unit: "records/s",
        note: `${round(rate / one, 2)}x one actor; the process got ${round(cores, 2)} of ${availableParallelism()} cores (load average ${round(load, 2)}); one core alone: ${Math.round(1e6 / CPU_US_PER_RECORD)}/s`,
      });
    }
    return rows;
  },
};
