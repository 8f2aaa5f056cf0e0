import type { ActorSpec, SimulationSpec } from "../kernel/simulation-spec.js";
import { DEFAULT_NETWORK } from "../router/fault-plan.js";

/** `actors` ping-pong actors (closed-loop pairs, no faults) for the worker-host benchmarks. */
export function pingPongGroup(actors: number, virtualMs: number, observeEachPong = false): SimulationSpec {
  const specs: ActorSpec[] = [];
  for (let i = 0; i < actors / 2; i++) {
    specs.push({ id: `pinger-${i}`, kind: "pinger", config: { peer: `ponger-${i}`, timeoutMs: 50, observeEachPong }, startAtUs: 0 });
    specs.push({ id: `ponger-${i}`, kind: "ponger", config: {}, startAtUs: 0 });
  }
  return {
    scenario: `bench-ping-pong-${actors}`,
    seed: 1,
    durationUs: virtualMs * 1000,
    actors: specs,
    plan: { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] },
    nemesis: [],
    useCodec: true,
    restartPolicy: { mode: "stop" },
  };
}
