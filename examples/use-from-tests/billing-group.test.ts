import { type Checker, defineScenario, huntSeeds, shrink, simulate, ViolationList } from "@kcsim/harness";
import { describe, expect, it } from "vitest";

// A consumer group built in code: ten KIP-848 members share 60 partitions; member-2 crashes and comes back.
const billing = defineScenario({
  name: "billing",
  durationMs: 120_000,
  cluster: { topics: [{ name: "orders", partitions: 60 }] },
  groups: [{ groupId: "billing", members: 10, subscription: ["orders"], staggerMs: 100, app: { revokeCallbackMs: 500 } }],
  nemesis: [
    { atMs: 20_000, actor: "member-2", action: "crash" },
    { atMs: 25_000, actor: "member-2", action: "restart" },
  ],
});

// A rule of your own, judged next to kcsim's: once restarted, member-2 is handed records again.
const restartedMemberConsumes: Checker = {
  name: "restarted-member-consumes",
  description: "member-2 gets records again after its restart",
  check(events, spec) {
    const violations = new ViolationList();
    const again = events.some((e) => e.ev === "obs" && e.actor === "member-2" && e.o.type === "member.records" && e.t > 25_000_000);
    if (!again) violations.add(spec.durationUs, "member-2 got no records after its restart");
    return violations.result();
  },
};

describe("the billing group", () => {
  it("survives a member crash: every checker holds, ours too", async () => {
    const run = await simulate(billing, { seed: 1, checkers: [restartedMemberConsumes] });
    expect(run.failures).toEqual([]);
    expect(run.summary.checks["restarted-member-consumes"]?.ok).toBe(true);
  });

  it("catches a coordinator that frees partitions before their owner let go, and shrinks the failing run", async () => {
    const joining = { ...billing, durationMs: 10_000, nemesis: [] };
    const hunt = await huntSeeds(joining, { seeds: [1, 3], asWritten: true, bugs: ["assign-before-revoke"], workers: 1 });
    const found = hunt.failures[0];
    expect(found?.failures.map((f) => f.check)).toContain("single-owner");
    if (found === undefined) return;
    const shrunk = await shrink(found.scenario, { seed: found.seed, check: "single-owner", maxTrials: 10 });
    expect(shrunk.shrunk.members).toBeLessThanOrEqual(shrunk.original.members);
    const again = await simulate(shrunk.scenario, { seed: found.seed });
    expect(again.failures.map((f) => f.check)).toContain("single-owner");
  });
});
