import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { InlineHost } from "../hosts/inline-host.js";
import type { ActorSpec, SimulationSpec } from "../kernel/simulation-spec.js";
import { DEFAULT_NETWORK } from "../router/fault-plan.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";

/** 1,000 actors: 500 closed-loop ping-pong pairs, each ping answered by a pong. */
function pingPongSpec(actors: number, useCodec: boolean, virtualMs: number): SimulationSpec {
  const specs: ActorSpec[] = [];
  for (let i = 0; i < actors / 2; i++) {
    specs.push({ id: `pinger-${i}`, kind: "pinger", config: { peer: `ponger-${i}`, timeoutMs: 50, observeEachPong: false }, startAtUs: 0 });
    specs.push({ id: `ponger-${i}`, kind: "ponger", config: {}, startAtUs: 0 });
  }
  return {
    scenario: "bench-ping-pong",
    seed: 1,
    durationUs: virtualMs * 1000,
    actors: specs,
    plan: { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] },
    nemesis: [],
    useCodec,
    restartPolicy: { mode: "stop" },
  };
}

function deliveredPerSecond(useCodec: boolean): { rate: number; delivered: number } {
  // Warm up, then measure one longer run.
  new InlineHost(pingPongSpec(1000, useCodec, 50), DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
  const result = new InlineHost(pingPongSpec(1000, useCodec, 600), DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
  return { rate: result.router.delivered / (result.wallMs / 1000), delivered: result.router.delivered };
}

export const inlineHostBench: BenchSuite = {
  name: "inline-host",
  description: "inline host: delivered messages per second, 1,000 ping-pong actors (history hashed, not kept)",
  async run(): Promise<BenchRow[]> {
    const withCodec = deliveredPerSecond(true);
    const without = deliveredPerSecond(false);
    return [
      {
        suite: this.name,
        case: "1,000 actors, msgpack codec",
        value: Math.round(withCodec.rate),
        unit: "msg/s",
        note: `${withCodec.delivered} messages`,
      },
      {
        suite: this.name,
        case: "1,000 actors, no codec",
        value: Math.round(without.rate),
        unit: "msg/s",
        note: `codec costs ${Math.round((1 - withCodec.rate / without.rate) * 100)}% of throughput (same run)`,
      },
    ];
  },
};
