import { describe, expect, it } from "vitest";
import { drawChaosPlan } from "../src/hunt/chaos-generator.js";
import { runScenario } from "../src/run/run-scenario.js";

/**
 * `kcsim hunt --swarm-migration`: the group swarm's group with some members replaced, one at a time, by processes
 * of the other protocol, so the coordinator converts the group online (and serves it mixed in between).
 */

const SEEDS = Array.from({ length: 300 }, (_, i) => i + 1);

describe("the migration swarm's draws", () => {
  it("starts from the group swarm's group and replaces members by the other protocol's, one at a time", () => {
    for (const seed of SEEDS) {
      const { scenario } = drawChaosPlan(seed, "migration");
      const group = scenario.groups?.[0];
      const original = drawChaosPlan(seed, "group").scenario.groups?.[0];
      expect(scenario.name).toBe("swarm-migration");
      // The same group as the group swarm draws from this seed (its faults differ: they are drawn after the replacements).
      expect({ ...group, replacements: undefined }).toEqual({ ...original, replacements: undefined });
      const replacements = group?.replacements ?? [];
      expect(replacements.length).toBeGreaterThanOrEqual(1);
      expect(replacements.length).toBeLessThanOrEqual(group?.members ?? 0);
      expect(new Set(replacements.map((r) => r.member)).size).toBe(replacements.length);
      const times = replacements.map((r) => r.atMs);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      for (const r of replacements) {
        expect(r.atMs).toBeGreaterThanOrEqual(10_000);
        expect(r.atMs).toBeLessThanOrEqual(110_000);
        expect(r.protocol === "consumer").toBe(group?.protocol !== "consumer");
      }
    }
  });

  it("draws upgrades and downgrades, partial and complete", () => {
    const kinds = new Set(
      SEEDS.map((seed) => {
        const group = drawChaosPlan(seed, "migration").scenario.groups?.[0];
        const all = group?.replacements?.length === group?.members ? "all" : "some";
        return `${group?.protocol}->${group?.replacements?.[0]?.protocol}, ${all}`;
      }),
    );
    for (const kind of ["eager->consumer", "cooperative->consumer", "consumer->eager", "consumer->cooperative"]) {
      expect(kinds).toContain(`${kind}, some`);
      expect(kinds).toContain(`${kind}, all`);
    }
  });
});

describe("migration swarm seeds whose first hunt failed epochs-monotonic: Kafka's own behaviour, judged right since", () => {
  it("seed 335: an empty classic group replaced by a new consumer group starts again at epoch 1", async () => {
    // Generation 3's members all left (member-3 replaced, the others timed out); member-3-r's ConsumerGroupHeartbeat
    // made the coordinator delete the empty classic group and create a consumer group (maybeDeleteEmptyClassicGroup).
    const plan = drawChaosPlan(335, "migration");
    const { summary, result } = await runScenario(plan.scenario, { host: "inline", seed: 335 });
    expect(summary.checks["epochs-monotonic"]?.ok).toBe(true);
    const groups = [...result.log].flatMap((event) =>
      event.ev === "obs" && event.o.type === "gc.group" ? [`${event.o.protocol} ${event.o.groupEpoch} ${event.o.members}`] : [],
    );
    const i = groups.indexOf("classic 3 0");
    expect(i).toBeGreaterThan(0);
    expect(groups[i + 1]).toBe("consumer 1 1");
  });

  it("seed 115: an empty consumer group replaced by a new classic group, reloaded after a failover at generation 0", async () => {
    const plan = drawChaosPlan(115, "migration");
    const { summary, result } = await runScenario(plan.scenario, { host: "inline", seed: 115 });
    expect(summary.checks["epochs-monotonic"]?.ok).toBe(true);
    const events = [...result.log];
    const loaded = events.findIndex((event) => event.ev === "obs" && event.o.type === "gc.loaded" && event.o.groups === 1);
    expect(loaded).toBeGreaterThan(0);
    const reloaded = events.slice(loaded).find((event) => event.ev === "obs" && event.o.type === "gc.group");
    expect(reloaded?.ev === "obs" && reloaded.o).toMatchObject({ protocol: "classic", groupEpoch: 0 });
  });
});

describe("migration swarm seeds whose hunt failed converges: kcsim's checker, judged right since", () => {
  it("seed 15921: a member left behind by an emptied classic group is a member again once the new consumer group answers its JoinGroup", async () => {
    // member-2, cut off, was left behind when its expired group moved to generation 3 (EMPTY); member-1-r's heartbeat
    // made the coordinator delete the empty classic group and create a consumer group, whose epochs start at 1.
    // member-2 rejoined it at epoch 2 and owns swarm-16..31 from 100.43 s: the group converged there.
    const plan = drawChaosPlan(15921, "migration");
    const { summary, result } = await runScenario(plan.scenario, { host: "inline", seed: 15921 });
    expect(summary.checks.converges).toMatchObject({ ok: true, violations: [] });
    expect(summary.checks.converges?.notJudged).toBeUndefined();
    const groups = [...result.log].flatMap((event) =>
      event.ev === "obs" && event.o.type === "gc.group" ? [`${event.o.protocol} ${event.o.groupEpoch} ${event.o.state}`] : [],
    );
    expect(groups).toContain("classic 3 EMPTY");
    expect(groups.at(-1)).toBe("consumer 2 STABLE");
  });

  it("seed 23244: closing old processes beside replacements refused for good (UNRELEASED_INSTANCE_ID) cannot converge: not judged", async () => {
    const plan = drawChaosPlan(23244, "migration");
    const { summary } = await runScenario(plan.scenario, { host: "inline", seed: 23244 });
    expect(summary.checks.converges).toMatchObject({
      ok: true,
      notJudged:
        "group swarm has no live member but consumers stopped by a fatal error (member-1-r: UNRELEASED_INSTANCE_ID, member-2-r: UNRELEASED_INSTANCE_ID), so it cannot converge",
    });
    expect(Object.entries(summary.checks).filter(([, verdict]) => !verdict.ok)).toEqual([]);
  });
});

describe("migration swarm seeds whose hunt failed committed-offsets-monotonic: kcsim's classic client, fixed since", () => {
  it("seed 50623: onJoinPrepare's commit is sent anew inside poll() after a retriable failure, never after close() began", async () => {
    // member-5 (classic, auto-commit, its commit answers lost with the connection) committed 181 on close() and then 180:
    // kcsim retried the commit before the revocation in the background with the positions of its last failure, after
    // close() had begun. Kafka's onJoinPrepare sends a new async commit of what is consumed by then, only from poll().
    const plan = drawChaosPlan(50623, "migration");
    const { summary, result } = await runScenario(plan.scenario, { host: "inline", seed: 50623 });
    expect(summary.checks["committed-offsets-monotonic"]).toMatchObject({ ok: true, violations: [] });
    // Every OffsetCommit member-5 sent after its close command is an attempt of the close's own commit.
    let closedAt: number | null = null;
    let sentAfterClose = 0;
    let closeAttempts = 0;
    for (const event of result.log) {
      if (event.ev === "life" && event.actor === "member-5" && event.what === "command" && event.detail === "close") closedAt = event.t;
      if (closedAt === null) continue;
      if (event.ev === "send" && event.from === "member-5" && event.type === "OffsetCommitRequest") sentAfterClose++;
      if (event.ev === "obs" && event.actor === "member-5" && event.o.type === "member.commit" && event.o.kind === "close") closeAttempts++;
    }
    expect(closedAt).not.toBeNull();
    expect(sentAfterClose).toBeGreaterThan(0);
    expect(sentAfterClose).toBe(closeAttempts);
  });
});
