import type { JsonValue, Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { CHECKERS, type HistoryEvent } from "../src/index.js";
import { testSpec } from "./helpers.js";

const obs = (t: number, o: Record<string, JsonValue>): HistoryEvent => ({ t, ev: "obs", actor: "coordinator-0", o: o as Observation });
const group = (t: number, protocol: string, epoch: number, state: string) =>
  obs(t, { type: "gc.group", groupId: "g", protocol, groupEpoch: epoch, assignmentEpoch: epoch, state, members: 3 });
const replaced = (t: number) =>
  obs(t, {
    type: "gc.member-removed",
    groupId: "g",
    memberId: "old-id",
    instanceId: "member-4",
    memberEpoch: 1,
    reason: "static-replaced",
  });

const check = (events: HistoryEvent[]) => {
  const checker = CHECKERS.get("static-replacement-no-bump");
  if (checker === undefined) throw new Error("no static-replacement-no-bump checker");
  return checker.check(events, testSpec({ actors: [] }));
};

describe("static-replacement-no-bump", () => {
  it("fails when a static rejoin bumps a STABLE classic group's generation", () => {
    const result = check([group(1000, "classic", 1, "STABLE"), group(2000, "classic", 2, "PREPARING_REBALANCE"), replaced(2000)]);
    expect(result.ok).toBe(false);
    expect(result.violations[0]?.message).toBe(
      "group g: the static rejoin of instance member-4 (replacing old-id) bumped the group epoch 1 -> 2",
    );
  });

  it("fails when a static rejoin bumps a consumer group's epoch, whatever its state", () => {
    const result = check([group(1000, "consumer", 5, "RECONCILING"), group(2000, "consumer", 6, "ASSIGNING"), replaced(2000)]);
    expect(result.ok).toBe(false);
  });

  // Swarm hunt seed 465: the group was PREPARING_REBALANCE for 29 s (six members expired) when member-4's new
  // process rejoined under its instance id; its JoinGroup completed the join phase and the generation moved 1 -> 2,
  // as Kafka's GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin does (maybeCompleteJoinPhase).
  it("passes when the rejoin completes a classic rebalance that was already pending", () => {
    const result = check([
      group(1000, "classic", 1, "PREPARING_REBALANCE"),
      group(2000, "classic", 2, "COMPLETING_REBALANCE"),
      replaced(2000),
    ]);
    expect(result.ok).toBe(true);
  });

  it("passes when a classic group in COMPLETING_REBALANCE rebalances on the rejoin, as Kafka does on purpose", () => {
    const result = check([
      group(1000, "classic", 3, "COMPLETING_REBALANCE"),
      group(2000, "classic", 4, "COMPLETING_REBALANCE"),
      replaced(2000),
    ]);
    expect(result.ok).toBe(true);
  });

  it("passes a static rejoin that leaves the epoch alone", () => {
    const result = check([group(1000, "classic", 1, "STABLE"), replaced(2000)]);
    expect(result.ok).toBe(true);
  });
});
