import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningCluster, type ScenarioFile, startCluster } from "../src/index.js";
import { releaseRunDirs, stopChild, until } from "./support/consumer-child.js";

const CONSUMER_PROCESS = fileURLToPath(new URL("./support/platformatic-consumer-process.mjs", import.meta.url));
const GROUP = "orders-app";
const TOPIC = "orders";
const PARTITIONS = 6;

/** A real KIP-848 consumer (@platformatic/kafka) in its own process: what its stream handed over and its assignments. */
class ConsumerProcess {
  readonly keys = new Set<string>();
  /** Autocommits the coordinator accepted. */
  commits = 0;
  /** Its assignment after each change, in order. */
  readonly assignments: number[][] = [];
  readonly child: ChildProcess;
  readonly ready: Promise<void>;

  /** `autocommit`: its stream's autocommit interval in ms, or "off" (it never commits). */
  constructor(brokers: string, clientId: string, autocommit: number | "off" = 500) {
    this.child = spawn(process.execPath, [CONSUMER_PROCESS, brokers, GROUP, clientId, TOPIC, String(autocommit)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const lines = createInterface({ input: this.child.stdout as NodeJS.ReadableStream });
    this.ready = new Promise((resolve) => {
      lines.on("line", (line) => {
        if (line === "ready") resolve();
        const [tag, field] = line.split(" ");
        if (tag === "msg" && field !== undefined) this.keys.add(field);
        if (tag === "committed") this.commits++;
        if (tag === "assigned") this.assignments.push(field === undefined || field === "" ? [] : field.split(",").map(Number));
      });
    });
  }

  get assignment(): number[] {
    return this.assignments.at(-1) ?? [];
  }

  /** Sends `signal` and waits for the process to exit (killed after 30 s if a SIGTERM'd one has not). */
  stop(signal: NodeJS.Signals): Promise<void> {
    return stopChild(this.child, signal);
  }
}

/**
 * Three brokers (RF 3) fed by a simulated producer, and a KIP-848 group of two simulated members reading through
 * them; the real clients join the same group. Session timeout 10 s (the broker's minimum here), heartbeats every
 * second, so a killed client's partitions move within seconds.
 */
function scenario(): ScenarioFile {
  return {
    name: "kip848-serve",
    durationMs: 600_000,
    cluster: {
      coordinators: 1,
      brokers: 3,
      topics: [{ name: TOPIC, partitions: PARTITIONS, replicationFactor: 3 }],
      broker: {
        "min.insync.replicas": 2,
        "group.consumer.min.session.timeout.ms": 10_000,
        "group.consumer.session.timeout.ms": 10_000,
        "group.consumer.min.heartbeat.interval.ms": 1_000,
        "group.consumer.heartbeat.interval.ms": 1_000,
      },
    },
    producers: [
      {
        count: 1,
        producer: { acks: "all" },
        workload: { topic: TOPIC, recordsPerSecond: 20, keys: { count: 1_000, dist: "uniform" }, valueBytes: { dist: "fixed", bytes: 20 } },
      },
    ],
    groups: [
      {
        groupId: GROUP,
        protocol: "consumer",
        members: 2,
        subscription: [TOPIC],
        consumer: { "auto.offset.reset": "earliest" },
        source: { kind: "fetch" },
      },
    ],
  };
}

/** When the faults of the chaos run end (cluster time, ms). */
const FAULTS_END_MS = 30_000;

/**
 * The same cluster under faults, from 3 s to 30 s: 5% of the real clients' fetches and 10% of their heartbeats break
 * their connection, and their group traffic to the coordinator is delayed (exponential, mean 200 ms). The test
 * crashes the coordinator itself once both real clients consume, and restarts it 2 s later. The real clients do not
 * commit here: @platformatic/kafka 1.35.0 retries a commit that failed (a broken connection, the coordinator down)
 * with its old offsets after a newer commit was accepted, which moves the group's committed offset back; this
 * run's first version found it (committed-offsets-monotonic), and platformatic-commit-retry.test.ts in
 * packages/wire pins it. Its commits are judged in the run above, without faults.
 */
function chaosScenario(): ScenarioFile {
  const window = { from: ["client:*"], startMs: 3_000, endMs: FAULTS_END_MS };
  return {
    ...scenario(),
    name: "kip848-serve-chaos",
    faults: [
      { name: "fetch-breaks", ...window, types: ["FetchRequest"], drop: { probability: 0.05 } },
      { name: "heartbeat-breaks", ...window, types: ["ConsumerGroupHeartbeatRequest"], drop: { probability: 0.1 } },
      { name: "group-delay", ...window, to: ["coordinator-*"], delay: { dist: "exponential", meanMs: 200 } },
    ],
  };
}

describe("kcsim serve with a real KIP-848 client (@platformatic/kafka, groupProtocol consumer)", () => {
  let cluster: RunningCluster | null = null;
  const consumers: ConsumerProcess[] = [];
  const dirs: string[] = [];

  afterEach(async (context) => {
    await Promise.all(consumers.splice(0).map((c) => c.stop("SIGKILL")));
    await cluster?.stop();
    cluster = null;
    releaseRunDirs(dirs, context.task.result?.state === "fail", "serve-kip848-client");
  });

  it("two real clients share a consumer group with two simulated members, one is killed and one leaves: checkers pass", async () => {
    const out = mkdtempSync(join(tmpdir(), "kcsim-serve-kip848-"));
    dirs.push(out);
    cluster = await startCluster({ scenario: scenario(), out: join(out, "run") });
    const brokers = cluster.bootstrapServers;
    const [a, b] = [new ConsumerProcess(brokers, "real-1"), new ConsumerProcess(brokers, "real-2")];
    consumers.push(a, b);
    await Promise.all(consumers.map((c) => c.ready));
    const seen = () =>
      consumers.map((c, i) => `real-${i + 1} ${JSON.stringify(c.assignments)}, ${c.keys.size} records, ${c.commits} commits`).join("; ");
    // Four members, six partitions: each real client gets some, consumes from them and commits.
    await until(
      () => consumers.every((c) => c.assignment.length > 0 && c.keys.size > 0 && c.commits > 0),
      60_000,
      () => `both real clients to consume and commit (${seen()})`,
    );
    // A crash: real-2 never leaves; the coordinator expires it after its session timeout and moves its partitions.
    const keysBefore = a.keys.size;
    await b.stop("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    await until(
      () => a.keys.size > keysBefore,
      30_000,
      () => `real-1 to consume on (${seen()})`,
    );
    // A leave: real-1 closes, which sends a heartbeat with member epoch -1.
    await a.stop("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    const verdicts = await cluster.stop();
    cluster = null;
    expect(verdicts.failures, seen()).toEqual([]);
    expect(verdicts.ok).toBe(true);
    expect(verdicts.clients).toEqual(expect.arrayContaining(["client:real-1", "client:real-2"]));
    const history = readFileSync(join(out, "run", "history.jsonl"), "utf8");
    const lines = history.split("\n").filter((line) => line.startsWith("{"));
    const of = (actor: string, type: string) =>
      lines.filter((line) => line.includes(`"actor":"${actor}"`) && line.includes(`"type":"${type}"`)).map((line) => JSON.parse(line));
    // The checkers judged the real clients as KIP-848 members: their states, what they owned, read and committed.
    for (const client of ["client:real-1", "client:real-2"]) {
      expect(of(client, "member.state").some((e) => e.o.protocol === "consumer" && e.o.to === "STABLE" && e.o.memberEpoch > 0)).toBe(true);
      expect(of(client, "member.owned").some((e) => e.o.cause === "assigned")).toBe(true);
      expect(of(client, "member.records").length).toBeGreaterThan(0);
      expect(of(client, "member.commit").some((e) => e.o.memberEpoch > 0 && e.o.result === "NONE")).toBe(true);
    }
    // real-2's session expired at the coordinator; real-1 left.
    expect(lines.some((line) => line.includes('"type":"gc.member-removed"'))).toBe(true);
    expect(of("client:real-1", "member.owned").at(-1)?.o.cause).toBe("leave");
    expect(of("client:real-1", "member.state").at(-1)?.o.to).toBe("UNSUBSCRIBED");
  }, 180_000);

  it("through broken fetches and heartbeats, delayed group traffic and a coordinator failover: checkers pass", async () => {
    const out = mkdtempSync(join(tmpdir(), "kcsim-serve-kip848-chaos-"));
    dirs.push(out);
    cluster = await startCluster({ scenario: chaosScenario(), out: join(out, "run") });
    const clusterStarted = Date.now();
    const brokers = cluster.bootstrapServers;
    consumers.push(new ConsumerProcess(brokers, "real-1", "off"), new ConsumerProcess(brokers, "real-2", "off"));
    await Promise.all(consumers.map((c) => c.ready));
    const seen = () => consumers.map((c, i) => `real-${i + 1} ${JSON.stringify(c.assignments)}, ${c.keys.size} records`).join("; ");
    await until(
      () => consumers.every((c) => c.keys.size > 0),
      60_000,
      () => `both real clients to consume (${seen()})`,
    );
    // The group's only coordinator fails over: it reloads the group from its log when it restarts.
    await cluster.nemesis("coordinator-0", "crash");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await cluster.nemesis("coordinator-0", "restart");
    const before = consumers.map((c) => c.keys.size);
    await until(
      () => consumers.every((c, i) => c.keys.size > (before[i] ?? 0)),
      60_000,
      () => `both real clients to consume after the failover (${seen()})`,
    );
    // Both leave once the faults are over.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, clusterStarted + FAULTS_END_MS + 1_000 - Date.now())));
    await Promise.all(consumers.map((c) => c.stop("SIGTERM")));
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const verdicts = await cluster.stop();
    cluster = null;
    expect(verdicts.failures, seen()).toEqual([]);
    expect(verdicts.ok).toBe(true);
    const history = readFileSync(join(out, "run", "history.jsonl"), "utf8");
    expect(history).toMatch(/"ev":"life","actor":"coordinator-0","what":"crash"/);
    expect(history).toMatch(/"ev":"life","actor":"coordinator-0","what":"restart"/);
    expect(history).toMatch(/"fault":"group-delay"/);
    for (const client of ["client:real-1", "client:real-2"]) {
      expect(history).toMatch(new RegExp(`"actor":"${client}","o":\\{"type":"member.records"`));
      expect(history).toMatch(new RegExp(`"actor":"${client}","o":\\{"type":"member.state"[^\\n]*"to":"UNSUBSCRIBED"`));
    }
  }, 240_000);
});
