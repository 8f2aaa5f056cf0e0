import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { validateScenario } from "../src/scenario/load-scenario.js";

/**
 * Swarm seed 1192, shrunk: two KIP-848 members committing synchronously after each batch, two network
 * partitions, nothing else. member-1 is cut off while its commitSync is in flight; the coordinator expires it
 * (72 s) and gives everything to member-2, which commits further; member-1's poll timer runs out inside the
 * blocked commitSync and it leaves the group (epoch -1); later member-2 is expired too and the group is empty.
 * member-1's commitSync is still within default.api.timeout.ms, so CommitRequestManager retries the same offsets,
 * now without a member epoch (it drops the epoch on leaving: onMemberEpochUpdated); the coordinator takes an
 * epoch-less commit on an empty group (ConsumerGroup.validateOffsetCommit: the admin path), and the group's
 * offsets go back to member-1's old positions. A real Kafka behaviour: committed-offsets-monotonic must fail.
 */
const scenario = validateScenario(
  {
    name: "commit-after-leave",
    durationMs: 117_000,
    cluster: {
      coordinators: 1,
      topics: [{ name: "swarm", partitions: 2 }],
      broker: {
        "group.consumer.min.session.timeout.ms": 10_000,
        "group.consumer.session.timeout.ms": 10_000,
        "group.consumer.min.heartbeat.interval.ms": 1000,
        "group.consumer.heartbeat.interval.ms": 2000,
      },
    },
    groups: [
      {
        groupId: "swarm",
        protocol: "consumer",
        members: 2,
        static: false,
        subscription: ["swarm"],
        staggerMs: 36,
        consumer: { "max.poll.interval.ms": 30_000, "enable.auto.commit": false, "group.remote.assignor": "range" },
        app: { processingMsPerRecord: 1, commit: "sync-after-batch" },
        source: { kind: "synthetic", recordsPerSecondPerPartition: 2 },
      },
    ],
    seed: 1192,
    partitions: [
      { name: "p0", a: ["member-2"], b: ["coordinator-0"], direction: "b-to-a", startMs: 93_066, endMs: 114_397 },
      { name: "p1", a: ["member-1"], b: ["coordinator-0"], direction: "two-way", startMs: 62_331, endMs: 98_376 },
    ],
  },
  "commit-after-leave",
);

interface AcceptedCommit {
  readonly t: number;
  readonly memberId: string;
  readonly epoch: number;
  readonly partition: number;
  readonly offset: number;
}

describe("swarm seed 1192: a KIP-848 commitSync retried after its member left the group", () => {
  it("lands without an epoch on the empty group and moves the committed offsets back", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 1192 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["committed-offsets-monotonic"]);
    expect(failing[0]?.[1].violations[0]?.message).toMatch(/^group swarm: swarm-\d committed \d+ after \d+ \(by /);

    const accepted: AcceptedCommit[] = [];
    const leftAt = new Map<string, number>();
    result.log.forEach((event) => {
      if (event.ev !== "obs") return;
      const o = event.o as { type: string; errorCode?: number; to?: string; memberId?: string } & AcceptedCommit;
      if (o.type === "gc.offset-commit" && o.errorCode === 0) accepted.push({ ...o, t: event.t });
      if (o.type === "member.state" && o.to === "LEAVING" && !leftAt.has(event.actor)) leftAt.set(event.actor, event.t);
    });
    const last = new Map<number, AcceptedCommit>();
    const backward = accepted.filter((commit) => {
      const before = last.get(commit.partition);
      last.set(commit.partition, commit);
      return before !== undefined && commit.offset < before.offset;
    });
    expect(backward.length).toBeGreaterThan(0);
    const memberLeft = leftAt.get("member-1");
    expect(memberLeft).toBeDefined();
    for (const commit of backward) {
      // Epoch-less (the member had left), after member-1 left and after both members were expired (113 s on).
      expect(commit.epoch).toBe(-1);
      expect(commit.t).toBeGreaterThan(memberLeft as number);
      expect(commit.t).toBeGreaterThan(113_000_000);
    }
  }, 60_000);
});
