import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningCluster, type ScenarioFile, startCluster } from "../src/index.js";
import { stopChild, until } from "./support/consumer-child.js";

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

  constructor(brokers: string, clientId: string) {
    this.child = spawn(process.execPath, [CONSUMER_PROCESS, brokers, GROUP, clientId, TOPIC], { stdio: ["ignore", "pipe", "inherit"] });
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

describe("kcsim serve with a real KIP-848 client (@platformatic/kafka, groupProtocol consumer)", () => {
  let cluster: RunningCluster | null = null;
  const consumers: ConsumerProcess[] = [];
  const dirs: string[] = [];

  afterEach(async (context) => {
    await Promise.all(consumers.splice(0).map((c) => c.stop("SIGKILL")));
    await cluster?.stop();
    cluster = null;
    const failed = context.task.result?.state === "fail";
    for (const dir of dirs.splice(0)) {
      if (failed) console.error(`serve-kip848-client: kept the failed run's directory ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    }
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
});
