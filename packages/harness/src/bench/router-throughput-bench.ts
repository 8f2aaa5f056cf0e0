import { loadavg } from "node:os";
import { MessageChannel, Worker } from "node:worker_threads";
import { decodeUnchecked } from "@kcsim/protocol";
import { ownedBytes } from "../hosts/worker/owned-bytes.js";
import { entryPoint } from "../kernel/built-module.js";
import { DEFAULT_NETWORK, type FaultPlan } from "../router/fault-plan.js";
import { corruptFrame, Router } from "../router/router.js";
import { benchCount } from "./bench-setting.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { round } from "./bench-suite.js";
import { PIPELINE_ACTORS, PIPELINE_TYPES, type PipelineBatch, type PipelineMessage } from "./pipeline-roles.js";

const BATCH = 256;
const WINDOW = 8;
const WARMUP_MS = 400;
const MEASURE_MS = 1_500;
/** Rounds of each mode, alternated (KCSIM_BENCH_ROUNDS, default 5). */
const roundCount = () => benchCount("KCSIM_BENCH_ROUNDS", 5);

/** The fault plan the router applies while it forwards (loss, jitter, duplicates, bursts, a partition). */
export const BENCH_FAULT_PLAN: FaultPlan = {
  // Datagram mode: the plan duplicates messages, which connections never do.
  network: { ...DEFAULT_NETWORK, mode: "datagram" },
  messageFaults: [
    { name: "loss", drop: { probability: 0.01 } },
    { name: "jitter", types: ["*Heartbeat*"], delay: { dist: "exponential", meanMs: 2 }, duplicate: { probability: 0.01 } },
    { name: "bursts", from: ["member-1*"], drop: { gilbertElliott: { pGoodToBad: 0.01, pBadToGood: 0.2, lossInGood: 0, lossInBad: 0.5 } } },
  ],
  partitions: [{ name: "split", a: ["member-5*"], b: ["coordinator"], direction: "two-way", startMs: 0, endMs: 1e9 }],
};

/**
 * Messages per second the main thread forwards from a sender worker to a
 * receiver worker (which decodes every batch and acknowledges it to the
 * sender: the flow control), one transferred buffer per batch of 256. "raw" forwards each
 * buffer untouched (the batched MessagePort ceiling); "router" decodes the
 * batch, routes every message through the Router with a fault plan, applies
 * its verdict (drop, duplicate, corrupt) and re-encodes one batch for the
 * receiver, as the realtime host's delivery rounds do.
 */
async function pipelineRate(mode: "raw" | "router"): Promise<number> {
  const acks = new MessageChannel();
  const sender = new Worker(entryPoint("pipeline-worker"), {
    execArgv: [],
    workerData: { role: "sender", payloadBytes: 72, batchSize: BATCH, window: WINDOW, acks: acks.port1 },
    transferList: [acks.port1],
  });
  const receiver = new Worker(entryPoint("pipeline-worker"), {
    execArgv: [],
    workerData: { role: "receiver", acks: acks.port2 },
    transferList: [acks.port2],
  });
  const router = new Router(BENCH_FAULT_PLAN, 1);
  let now = 0;
  let forwarded = 0;
  sender.on("message", (bytes: Uint8Array<ArrayBuffer>) => {
    if (mode === "raw") {
      forwarded += BATCH;
      receiver.postMessage(bytes, [bytes.buffer]);
      return;
    }
    const [, messages] = decodeUnchecked(bytes) as PipelineBatch;
    forwarded += messages.length;
    merged++;
    for (const message of messages) {
      const [from, to, type, frame] = message;
      now += 10;
      const decision = router.route(
        now,
        PIPELINE_ACTORS[from] as string,
        PIPELINE_ACTORS[to] as string,
        PIPELINE_TYPES[type] as string,
        frame.length,
      );
      const delivered = decision.corrupt === null ? message : ([from, to, type, corruptFrame(frame, decision.corrupt)] as const);
      for (let i = 0; i < decision.at.length; i++) out.push(delivered);
    }
    const batch = ownedBytes([merged, out] satisfies PipelineBatch);
    out = [];
    merged = 0;
    receiver.postMessage(batch, [batch.buffer]);
  });
  let out: PipelineMessage[] = [];
  let merged = 0;
  try {
    await new Promise((resolve) => setTimeout(resolve, WARMUP_MS));
    const before = forwarded;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
    return ((forwarded - before) * 1000) / (performance.now() - started);
  } finally {
    await Promise.all([sender.terminate(), receiver.terminate()]);
  }
}

export const routerThroughputBench: BenchSuite = {
  name: "router-throughput",
  description: "messages/s forwarded worker -> main-thread router (fault plan on) -> worker, vs the raw batched MessagePort ceiling",
  async run(): Promise<BenchRow[]> {
    const rounds = roundCount();
    // Alternated, so a change in the machine's load hits both alike. On a shared machine a round can lose
    // most of its CPU to other processes: the best round of each mode is the capacity (the number reported),
    // and the median of the paired rounds' ratios shows how steady that is.
    const raws: number[] = [];
    const routeds: number[] = [];
    const loadBefore = loadavg()[0] ?? 0;
    for (let round = 0; round < rounds; round++) {
      raws.push(await pipelineRate("raw"));
      routeds.push(await pipelineRate("router"));
    }
    const raw = Math.max(...raws);
    const routed = Math.max(...routeds);
    const pairs = raws.map((r, i) => (routeds[i] as number) / r).sort((a, b) => a - b);
    const medianPair = pairs[Math.floor(pairs.length / 2)] as number;
    const k = (values: readonly number[]) => values.map((r) => Math.round(r / 1000)).join(", ");
    return [
      {
        suite: this.name,
        case: "raw batched MessagePort (ceiling)",
        value: Math.round(raw),
        unit: "msg/s",
        note: `batches of ${BATCH}, ${WINDOW} in flight; best of ${rounds} rounds: ${k(raws)}k (load average ${round(loadBefore, 2)})`,
      },
      {
        suite: this.name,
        case: "through the router, 3 faults + 1 partition",
        value: Math.round(routed),
        unit: "msg/s",
        note: `${round((routed / raw) * 100, 2)}% of the ceiling, best against best (rounds alternated with it: ${k(routeds)}k; median of the paired ratios ${round(medianPair * 100, 2)}%; target >= 60%)`,
      },
    ];
  },
};
