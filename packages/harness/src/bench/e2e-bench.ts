import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { InlineHost } from "../hosts/inline-host.js";
import { toSimulationSpec, validateScenario } from "../scenario/load-scenario.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { E2eRecordCounter } from "./e2e-record-counter.js";

/**
 * End-to-end records per second through the inline host: producers (acks=all)
 * write to 3 brokers (replication factor 3), and a KIP-848 group of 20
 * members reads 200 partitions through the real fetcher (KIP-227 sessions),
 * processes and commits. No faults. The history is hashed, not kept: the
 * records are counted from its events (`producer.ack` with no error,
 * `member.records`) as they are recorded, with no JSON lines made (making
 * them would bill the bench's own counting to the simulator).
 */

export interface E2eOptions {
  readonly members: number;
  readonly partitions: number;
  readonly producers: number;
  /** Records per second, per producer. */
  readonly recordsPerSecond: number;
  readonly durationMs: number;
  /** Producers stop this long before the end, so the group can drain. */
  readonly drainMs: number;
}

export const E2E_DEFAULTS: E2eOptions = {
  members: 20,
  partitions: 200,
  producers: 4,
  recordsPerSecond: 2_500,
  // About 25 s of CPU on this machine (the wall time is longer when the cores are shared).
  durationMs: 5_000,
  drainMs: 1_000,
};

export function e2eScenario(o: E2eOptions) {
  return validateScenario(
    {
      name: `e2e-${o.members}x${o.partitions}`,
      seed: 1,
      durationMs: o.durationMs,
      cluster: { coordinators: 1, brokers: 3, topics: [{ name: "orders", partitions: o.partitions, replicationFactor: 3 }] },
      producers: [
        {
          count: o.producers,
          producer: { acks: "all", "linger.ms": 5 },
          workload: {
            topic: "orders",
            recordsPerSecond: o.recordsPerSecond,
            keys: { count: 10_000, dist: "uniform" },
            valueBytes: { dist: "fixed", bytes: 200 },
            stopAtMs: o.durationMs - o.drainMs,
          },
        },
      ],
      groups: [
        {
          groupId: "e2e",
          protocol: "consumer",
          members: o.members,
          subscription: ["orders"],
          staggerMs: 50,
          consumer: { "auto.offset.reset": "earliest" },
          app: { processingMsPerRecord: 0.05 },
          source: { kind: "fetch" },
        },
      ],
    },
    "bench",
  );
}

export interface E2eResult {
  readonly wallMs: number;
  /** CPU time of this process during the run (user + system), ms: the wall time without the machine's other load. */
  readonly cpuMs: number;
  readonly virtualMs: number;
  readonly produced: number;
  readonly consumed: number;
  readonly delivered: number;
  readonly events: number;
}

/** Runs the scenario once in the inline host and counts acknowledged and consumed records. */
export function runE2e(options: E2eOptions = E2E_DEFAULTS): E2eResult {
  const spec = toSimulationSpec(e2eScenario(options));
  const counter = new E2eRecordCounter();
  const host = new InlineHost(spec, DEFAULT_REGISTRY, { history: { keepEvents: false, follower: counter } });
  const cpuBefore = process.cpuUsage();
  const result = host.run();
  const cpu = process.cpuUsage(cpuBefore);
  return {
    wallMs: result.wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    virtualMs: result.virtualEndUs / 1000,
    produced: counter.produced,
    consumed: counter.consumed,
    delivered: result.router.delivered,
    events: result.eventsProcessed,
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

export const e2eBench: BenchSuite = {
  name: "e2e",
  description: "end-to-end records/s through the inline host: 20 KIP-848 members x 200 partitions, fetch record source, no faults",
  async run(): Promise<BenchRow[]> {
    const o = E2E_DEFAULTS;
    const r = runE2e(o);
    const wallS = r.wallMs / 1000;
    const virtualS = r.virtualMs / 1000;
    const setup = `${o.members} members x ${o.partitions} partitions, 3 brokers (RF 3, acks=all), ${o.producers} producers x ${fmt(o.recordsPerSecond)} rec/s for ${(o.durationMs - o.drainMs) / 1000} s of ${o.durationMs / 1000} s virtual`;
    return [
      {
        suite: this.name,
        case: "records produced per wall second",
        value: Math.round(r.produced / wallS),
        unit: "records/s",
        note: `${fmt(r.produced)} records acknowledged in ${fmt(r.wallMs)} ms wall; ${setup}`,
      },
      {
        suite: this.name,
        case: "records consumed per wall second",
        value: Math.round(r.consumed / wallS),
        unit: "records/s",
        note: `${fmt(r.consumed)} records handed to applications (${((r.consumed / Math.max(1, r.produced)) * 100).toFixed(1)}% of acknowledged)`,
      },
      {
        suite: this.name,
        case: "records consumed per CPU second",
        value: Math.round(r.consumed / (r.cpuMs / 1000)),
        unit: "records/s",
        note: `${fmt(r.cpuMs)} ms CPU (user + system) for ${fmt(r.wallMs)} ms wall: the rate on an unshared core`,
      },
      {
        suite: this.name,
        case: "records produced per virtual second",
        value: Math.round(r.produced / virtualS),
        unit: "records/s",
        note: `over ${fmt(r.virtualMs)} ms virtual (producing for ${(o.durationMs - o.drainMs) / 1000} s); ${(virtualS / wallS).toFixed(2)}x real time`,
      },
      {
        suite: this.name,
        case: "records consumed per virtual second",
        value: Math.round(r.consumed / virtualS),
        unit: "records/s",
        note: `over ${fmt(r.virtualMs)} ms virtual, group start (members 50 ms apart) included`,
      },
      {
        suite: this.name,
        case: "messages delivered per wall second",
        value: Math.round(r.delivered / wallS),
        unit: "msg/s",
        note: `${fmt(r.delivered)} messages, ${fmt(r.events)} events, codec on, history hashed not kept`,
      },
    ];
  },
};
