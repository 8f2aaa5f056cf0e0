import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { JsonValue } from "@kcsim/protocol";
import { DEFAULT_NETWORK, type SimulationSpec, toSimulationSpec, validateScenario } from "../src/index.js";
import { actor, testSpec } from "./helpers.js";

/**
 * scenarios/ping-pong.json (on connections) or datagram-stress.json (the
 * same pairs on datagrams) with every time divided by ten: the same faults
 * (loss, jitter, duplicates on datagrams, the one-way partition, the crash
 * and restart of ponger-1, the pause of pinger-2), a tenth of the windows.
 */
export function compressedPingPong(seed: number, file: "ping-pong" | "datagram-stress" = "ping-pong"): SimulationSpec {
  const path = fileURLToPath(new URL(`../../../scenarios/${file}.json`, import.meta.url));
  const scenario = JSON.parse(readFileSync(path, "utf8")) as Record<string, JsonValue>;
  const tenth = (value: JsonValue): JsonValue => {
    if (Array.isArray(value)) return value.map(tenth);
    if (typeof value !== "object" || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, v]) => [
        key,
        typeof v === "number" && /^(atMs|startAtMs|startMs|endMs|durationMs)$/.test(key) ? v / 10 : tenth(v),
      ]),
    );
  };
  return toSimulationSpec(validateScenario(tenth(scenario), "ping-pong (compressed)"), { seed });
}

/**
 * Ping-pong pairs (a, b, c, d by default) whose pongers have planted faults (faulty-ponger),
 * through a network with every kind of message fault.
 */
export function faultySpec(durationUs: number, seed = 1, pairs: readonly string[] = ["a", "b", "c", "d"]): SimulationSpec {
  return testSpec({
    seed,
    durationUs,
    restartPolicy: { mode: "restart", delayUs: 20_000 },
    actors: pairs.flatMap((p) => [
      actor(`pinger-${p}`, "pinger", { peer: `ponger-${p}`, timeoutMs: 20 }),
      actor(`ponger-${p}`, "faulty-ponger"),
    ]),
  });
}

/** Every message fault of the router at once (on pairs a and b), so lockstep and inline must agree on all of them. */
export function withEveryFault(spec: SimulationSpec): SimulationSpec {
  return {
    ...spec,
    plan: {
      // Datagrams: duplicates and reordering exist only there.
      network: { ...DEFAULT_NETWORK, mode: "datagram", minLatencyMs: 0.5, latency: { dist: "normal", meanMs: 1, stddevMs: 0.3 } },
      messageFaults: [
        {
          name: "bursts",
          from: ["pinger-a"],
          drop: { gilbertElliott: { pGoodToBad: 0.05, pBadToGood: 0.3, lossInGood: 0, lossInBad: 0.6 } },
        },
        { name: "tail", to: ["ponger-b"], delay: { dist: "pareto", scaleMs: 0.2, shape: 1.5 } },
        { name: "echo", types: ["SimPong"], duplicate: { probability: 0.1, delay: { dist: "uniform", minMs: 0, maxMs: 2 } } },
        { name: "shuffle", from: ["ponger-a"], reorder: { probability: 0.2, delay: { dist: "exponential", meanMs: 1 } } },
        { name: "thin", to: ["pinger-b"], bandwidth: { bytesPerSecond: 20_000 } },
        { name: "rot", corrupt: { probability: 0.03, mode: "garbage" }, endMs: 150 },
        { name: "cut", corrupt: { probability: 0.03, mode: "truncate" }, startMs: 150 },
      ],
      partitions: [{ name: "split", a: ["pinger-b"], b: ["ponger-b"], direction: "two-way", startMs: 100, endMs: 140 }],
    },
  };
}
