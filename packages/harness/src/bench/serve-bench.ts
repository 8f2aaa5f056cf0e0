import { createRequire } from "node:module";
import { connect, createServer, type Server, type Socket } from "node:net";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { KcsimServer } from "../serve/kcsim-server.js";
import { benchCount } from "./bench-setting.js";
import { type BenchRow, type BenchSuite, round } from "./bench-suite.js";

type KafkaJSModule = typeof import("kafkajs");

/** Requests one after another (KCSIM_SERVE_BENCH_REQUESTS, default 2000). */
const sequentialCount = () => benchCount("KCSIM_SERVE_BENCH_REQUESTS", 2000);
const CONCURRENT_MS = 5_000;
const IN_FLIGHT = 16;
const VALUE = "x".repeat(100);

/**
 * The cluster of the bench: kcsim serve's default (three brokers, the
 * topic auto-created with one partition, replication factor 1) with the
 * simulated network's latency at its floor (10 us per hop), so the time
 * measured is kcsim's own: the realtime host's scheduling, the router,
 * the worker threads, the wire codec and the mapping.
 */
const SCENARIO: ScenarioFile = {
  name: "serve-bench",
  durationMs: 86_400_000,
  network: { minLatencyMs: 0.01, latency: { dist: "fixed", ms: 0.01 } },
  cluster: { coordinators: 3, brokers: 3, topics: [{ name: "bench", partitions: 1, replicationFactor: 1 }] },
};

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** Round trips of `bytes` through a plain TCP echo server on loopback: the floor any TCP server has. */
async function echoRoundTrips(bytes: number, count: number): Promise<number[]> {
  const server: Server = createServer({ noDelay: true }, (socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const socket: Socket = connect({ port, host: "127.0.0.1", noDelay: true });
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const payload = Buffer.alloc(bytes, 1);
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      let got = 0;
      const onData = (chunk: Buffer) => {
        got += chunk.length;
        if (got >= bytes) {
          socket.off("data", onData);
          resolve();
        }
      };
      socket.on("data", onData);
      socket.write(payload);
    });
    times.push(performance.now() - started);
  }
  socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return times;
}

/**
 * Requests per second through `kcsim serve` from one KafkaJS 2.2.4
 * producer (acks=1, one 100-byte record per request), one request at a time
 * and with 16 in flight, and the latency each request adds against a plain
 * TCP echo of a request-sized frame measured in the same run.
 */
export const serveBench: BenchSuite = {
  name: "serve",
  description: "kcsim serve: produce requests/s from one KafkaJS producer, latency added over a TCP echo",
  async run(): Promise<BenchRow[]> {
    const sequential = sequentialCount();
    const { Kafka, logLevel } = createRequire(import.meta.url)("kafkajs") as KafkaJSModule;
    const server = await KcsimServer.start({ scenario: SCENARIO, port: 0 });
    const kafka = new Kafka({ clientId: "bench-producer", brokers: server.bootstrapServers.split(","), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    const send = () => producer.send({ topic: "bench", acks: 1, messages: [{ value: VALUE }] });
    let latencies: number[];
    let concurrentRate: number;
    try {
      await producer.connect();
      for (let i = 0; i < 50; i++) await send(); // warm-up: metadata, connections, JIT
      latencies = [];
      const sequentialStarted = performance.now();
      for (let i = 0; i < sequential; i++) {
        const started = performance.now();
        await send();
        latencies.push(performance.now() - started);
      }
      const sequentialRate = sequential / ((performance.now() - sequentialStarted) / 1000);
      let done = 0;
      const until = performance.now() + CONCURRENT_MS;
      const concurrentStarted = performance.now();
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (performance.now() < until) {
            await send();
            done++;
          }
        }),
      );
      concurrentRate = done / ((performance.now() - concurrentStarted) / 1000);
      latencies.sort((a, b) => a - b);
      await producer.disconnect();
      const result = await server.stop();
      const echo = (await echoRoundTrips(190, sequential)).sort((a, b) => a - b);
      const p50 = quantile(latencies, 0.5);
      const echoP50 = quantile(echo, 0.5);
      return [
        {
          suite: "serve",
          case: "produce requests/s, one at a time",
          value: round(sequentialRate),
          unit: "req/s",
          note: `${sequential} requests from one KafkaJS producer (acks=1, 100 B records), simulated hops of 10 us; checkers ${result.ok ? "pass" : "FAIL"}`,
        },
        {
          suite: "serve",
          case: `produce requests/s, ${IN_FLIGHT} in flight`,
          value: round(concurrentRate),
          unit: "req/s",
          note: `${CONCURRENT_MS / 1000} s of ${IN_FLIGHT} concurrent sends (KafkaJS pipelines them on one connection; the broker serves one at a time)`,
        },
        {
          suite: "serve",
          case: "request latency p50 / p99",
          value: round(p50, 3),
          unit: "ms",
          note: `p99 ${round(quantile(latencies, 0.99), 3)} ms`,
        },
        {
          suite: "serve",
          case: "plain TCP echo round trip p50 / p99",
          value: round(echoP50, 3),
          unit: "ms",
          note: `${sequential} round trips of a 190-byte frame on loopback (same run); p99 ${round(quantile(echo, 0.99), 3)} ms`,
        },
        {
          suite: "serve",
          case: "latency added per request (p50)",
          value: round(p50 - echoP50, 3),
          unit: "ms",
          note: `kcsim serve's p50 minus the echo's p50: ${round(p50 / echoP50)}x the echo`,
        },
      ];
    } finally {
      await server.stop();
    }
  },
};
