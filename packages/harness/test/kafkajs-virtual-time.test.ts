import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type HistoryEvent, loadScenarioFile, runScenario, type ScenarioFile } from "../src/index.js";
import { isBackToOldPartitions, type OwnedAt } from "./support/kafkajs-old-partitions.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const SCENARIO = fileURLToPath(new URL("../../../scenarios/kafkajs-chaos.json", import.meta.url));

/** kafkajs-chaos cut at 35 s: the member crash, the partition, the stuck application and the coordinator failover are in. */
function shortChaos(): ScenarioFile {
  return { ...loadScenarioFile(SCENARIO), durationMs: 35_000 };
}

function cliRun(file: string): Promise<{ historyHash: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, "run", file, "--json"], { maxBuffer: 16 << 20 }, (error, stdout) => {
      // Exit code 1 is a checker's verdict, not a failure to run.
      if (error !== null && error.code !== 1) reject(error);
      else resolve(JSON.parse(stdout) as { historyHash: string });
    });
  });
}

const observations = (events: readonly HistoryEvent[], type: string) =>
  events.filter((e): e is Extract<HistoryEvent, { ev: "obs" }> => e.ev === "obs" && e.o.type === type);

const ownedOf = (events: readonly HistoryEvent[]): OwnedAt[] =>
  observations(events, "member.owned").map((e) => ({ t: e.t, actor: e.actor, owned: e.o.owned as Record<string, number[]> }));

/**
 * serve-kafkajs.test.ts's scenario in virtual time (its real-clock run cannot be repeated), as it was when the
 * coordinator's crash came at a fixed time: three KafkaJS consumers (session 6 s, heartbeats every 500 ms), one
 * killed at 5 s; its session expires and the group rebalances just before the coordinator crashes at 12 s (back at
 * 14 s); 3% of fetches break and group traffic is delayed from 3 s to 18 s. A producer writes 25 records/s until
 * 16 s. That test now crashes the coordinator once its consumers report the rebalance over, because of this bug.
 */
function serveTestScenario(): ScenarioFile {
  return {
    name: "serve-kafkajs-in-virtual-time",
    durationMs: 60_000,
    cluster: {
      coordinators: 1,
      brokers: 3,
      topics: [{ name: "orders", partitions: 6, replicationFactor: 3 }],
      broker: { "min.insync.replicas": 2, "group.initial.rebalance.delay.ms": 500 },
    },
    producers: [
      {
        count: 1,
        producer: { acks: "all" },
        workload: {
          topic: "orders",
          recordsPerSecond: 25,
          keys: { count: 1000, dist: "uniform" },
          valueBytes: { dist: "fixed", bytes: 20 },
          stopAtMs: 16_000,
        },
      },
    ],
    groups: [
      {
        groupId: "orders-app",
        client: "kafkajs",
        members: 3,
        subscription: ["orders"],
        staggerMs: 100,
        kafkajs: { sessionTimeout: 6000, heartbeatInterval: 500, maxWaitTimeInMs: 200 },
        app: { handler: "eachMessage", processingMsPerRecord: 0 },
      },
    ],
    faults: [
      { name: "fetch-breaks", from: ["member-*"], types: ["FetchRequest"], startMs: 3000, endMs: 18_000, drop: { probability: 0.03 } },
      {
        name: "group-delay",
        from: ["member-*"],
        to: ["coordinator-*"],
        startMs: 3000,
        endMs: 18_000,
        delay: { dist: "exponential", meanMs: 50 },
      },
    ],
    nemesis: [
      { atMs: 5000, actor: "member-3", action: "crash" },
      { atMs: 12_000, actor: "coordinator-0", action: "crash" },
      { atMs: 14_000, actor: "coordinator-0", action: "restart" },
    ],
  };
}

describe("KafkaJS 2.2.4 consumers in virtual time", () => {
  const dir = mkdtempSync(join(tmpdir(), "kcsim-kafkajs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Seed 1 of the short chaos, run once for both tests.
  let firstRun: ReturnType<typeof runScenario> | null = null;
  const seed1 = () => {
    firstRun ??= runScenario(shortChaos(), { host: "inline", seed: 1 });
    return firstRun;
  };

  it("gives the same history hash twice in one process and in another process", async () => {
    const realSetTimeout = globalThis.setTimeout;
    const first = await seed1();
    const second = await runScenario(shortChaos(), { host: "inline", seed: 1 });
    expect(second.summary.historyHash).toBe(first.summary.historyHash);
    // The dispatching globals are gone once the runs are over.
    expect(globalThis.setTimeout).toBe(realSetTimeout);

    const file = join(dir, "kafkajs-chaos-35s.json");
    writeFileSync(file, JSON.stringify(shortChaos()));
    expect((await cliRun(file)).historyHash).toBe(first.summary.historyHash);

    // KafkaJS's own code ran: its three consumers joined the group, consumed, committed, and one was crashed and came back.
    const events = first.result.events;
    const joins = new Set(observations(events, "kafkajs.group-join").map((e) => e.actor));
    expect([...joins].sort()).toEqual(["member-1", "member-2", "member-3"]);
    expect(observations(events, "member.records").length).toBeGreaterThan(100);
    expect(observations(events, "member.commit").some((e) => e.o.result === "NONE")).toBe(true);
    expect(events.some((e) => e.ev === "life" && e.actor === "member-3" && e.what === "restart")).toBe(true);
  }, 240_000);

  it("finds KafkaJS handing a fenced member's old partitions to its application after a failed rejoin (seed 1)", async () => {
    const { summary, result } = await seed1();
    // member-2 was cut off its coordinator past its session (fenced, its partitions moved to member-1); its rejoin
    // failed when the coordinator crashed, and KafkaJS's runner went back to fetching its previous assignment.
    const check = summary.checks["contiguous-offsets"];
    expect(check?.ok).toBe(false);
    const fenced = check?.violations.find((v) => v.message.startsWith("member-2 "));
    expect(fenced?.message).toMatch(/^member-2 was handed records of orders-\d, which it did not own$/);
    const removed = observations(result.events, "gc.member-removed").find((e) => String(e.o.memberId).startsWith("member-2-"));
    expect(removed?.o.reason).toBe("session-timeout");
    expect(removed?.t).toBeLessThan(fenced?.t ?? 0);
    expect(readFileSync(SCENARIO, "utf8")).toContain('"client": "kafkajs"');
    // Each violation is a partition of the member's last assignment, handed to it while it owned nothing.
    const owned = ownedOf(result.events);
    for (const violation of check?.violations ?? []) expect(isBackToOldPartitions(violation, owned), violation.message).toBe(true);
    // A partition the member never held is not that shape.
    expect(
      isBackToOldPartitions(
        { ...(fenced as NonNullable<typeof fenced>), message: "member-2 was handed records of orders-99, which it did not own" },
        owned,
      ),
    ).toBe(false);
  }, 120_000);

  // Seed 1 until the producer stopped drawing randoms for keyed records (KIP-794's partitioner); seed 1 now fails with
  // member-1's SyncGroup in flight instead, and seeds 7, 13 and 14 of 1..20 with its JoinGroup.
  it("reaches KafkaJS's bug on serve-kafkajs.test.ts's scenario with a fixed-time crash: a JoinGroup in flight when the coordinator crashes sends KafkaJS back to its old partitions (seed 7)", async () => {
    const { summary, result } = await runScenario(serveTestScenario(), { host: "inline", seed: 7 });
    const failed = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failed.map(([name]) => name)).toEqual(["contiguous-offsets"]);
    const violations = summary.checks["contiguous-offsets"]?.violations ?? [];
    expect(violations[0]?.message).toBe("member-1 was handed records of orders-0, which it did not own");
    // member-1's JoinGroup of the rebalance that member-3's expiry started was in flight when the coordinator crashed.
    const crash = result.events.find((e) => e.ev === "life" && e.actor === "coordinator-0" && e.what === "crash");
    const crashAt = crash?.t ?? 0;
    const stateAtCrash = observations(result.events, "member.state")
      .filter((e) => e.actor === "member-1" && e.t < crashAt)
      .at(-1);
    expect(stateAtCrash?.o.to).toBe("PREPARING_REBALANCE");
    const joinAt = result.events
      .filter((e) => e.ev === "send" && e.from === "member-1" && e.type === "JoinGroupRequest" && e.t < crashAt)
      .at(-1)?.t;
    const answered = result.events.some(
      (e) => e.ev === "send" && e.to === "member-1" && e.type === "JoinGroupResponse" && e.t > (joinAt ?? crashAt) && e.t < crashAt,
    );
    expect(joinAt).toBeDefined();
    expect(answered).toBe(false);
    expect(crash?.t).toBeLessThan(violations[0]?.t ?? 0);
    const owned = ownedOf(result.events);
    for (const violation of violations) expect(isBackToOldPartitions(violation, owned), violation.message).toBe(true);
  }, 120_000);
});
