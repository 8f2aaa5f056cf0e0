import { fileURLToPath } from "node:url";
import type { Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { followGroupMetrics } from "../src/analysis/group-metrics.js";
import {
  CHECKERS,
  DEFAULT_REGISTRY,
  type EventFollower,
  type HistoryEvent,
  HistoryPass,
  InlineHost,
  isStreaming,
  loadScenarioFile,
  RunMetricsFollower,
  type SimulationSpec,
  toSimulationSpec,
} from "../src/index.js";
import { actor, testSpec } from "./helpers.js";

const obs = (t: number, type: string): HistoryEvent => ({ t, ev: "obs", actor: "a", o: { type } as Observation });
const life = (t: number): HistoryEvent => ({ t, ev: "life", actor: "a", what: "start", detail: null });
const send = (t: number): HistoryEvent => ({ t, ev: "send", from: "a", to: "b", type: "T", bytes: 1, fate: "deliver", at: [t + 1] });

/** A follower that notes what it is handed, as "name:index". */
function recorder(name: string, seen: string[], reads?: readonly string[]): EventFollower {
  return { ...(reads === undefined ? {} : { reads }), accept: (_event, index) => void seen.push(`${name}:${index}`) };
}

describe("a history pass", () => {
  const events = [life(0), obs(1, "x"), send(2), obs(2, "y"), obs(3, "x"), send(5)];

  it("hands each event to the followers that read its kind or type, in the order they joined; routed: false, to all", () => {
    const handed = (routed: boolean) => {
      const seen: string[] = [];
      const pass = new HistoryPass(testSpec({ actors: [] }), { routed });
      pass.follow(recorder("all", seen));
      pass.follow(recorder("x", seen, ["x"]));
      pass.follow(recorder("obs", seen, ["obs"]));
      pass.follow(recorder("send+y", seen, ["send", "y"]));
      pass.follow(recorder("none", seen, []));
      pass.acceptAll(events);
      return seen;
    };
    expect(handed(true)).toEqual([
      "all:0",
      "all:1",
      "x:1",
      "obs:1",
      "all:2",
      "send+y:2",
      "all:3",
      "obs:3",
      "send+y:3",
      "all:4",
      "x:4",
      "obs:4",
      "all:5",
      "send+y:5",
    ]);
    const everyone = ["all", "x", "obs", "send+y", "none"];
    expect(handed(false)).toEqual(events.flatMap((_, index) => everyone.map((name) => `${name}:${index}`)));
  });

  it("hands the sends of one message type to a follower that reads `send <type>`, and no other send", () => {
    const seen: string[] = [];
    const pass = new HistoryPass(testSpec({ actors: [] }));
    const typed = (t: number, type: string): HistoryEvent => ({ ...send(t), type }) as HistoryEvent;
    pass.follow(recorder("U", seen, ["send U"]));
    pass.follow(recorder("sends", seen, ["send"]));
    pass.follow(recorder("T+x", seen, ["send T", "x"]));
    pass.acceptAll([typed(0, "U"), send(1), obs(2, "x"), typed(3, "V"), send(4), typed(5, "U")]);
    expect(seen).toEqual(["U:0", "sends:0", "sends:1", "T+x:1", "T+x:2", "sends:3", "sends:4", "T+x:4", "U:5", "sends:5"]);
  });

  it("wakes a caller once, at the first event at or after its time, after the followers have seen it", () => {
    const seen: string[] = [];
    const pass = new HistoryPass(testSpec({ actors: [] }));
    pass.follow(recorder("x", seen, ["x"]));
    pass.atFirstEventFrom(2, (event, index) => void seen.push(`wake2:${index}@${event.t}`));
    pass.atFirstEventFrom(4, (event, index) => void seen.push(`wake4:${index}@${event.t}`));
    pass.atFirstEventFrom(2, (event, index) => void seen.push(`wake2b:${index}@${event.t}`));
    pass.atFirstEventFrom(9, () => void seen.push("never"));
    expect(pass.instant).toBeNaN();
    pass.acceptAll(events);
    expect(seen).toEqual(["x:1", "wake2:2@2", "wake2b:2@2", "x:4", "wake4:5@5"]);
    expect(pass.instant).toBe(5);
  });
});

/** Every streaming checker's verdict and the run's metrics (wall-clock ones left out), judged in one pass. */
function judged(spec: SimulationSpec, run: ReturnType<InlineHost["run"]>, routed: boolean) {
  const pass = new HistoryPass(spec, { routed });
  const judgements = [...CHECKERS.values()].filter(isStreaming).map((checker) => {
    const judgement = checker.judge(pass);
    pass.follow(judgement);
    return [checker.name, judgement] as const;
  });
  const metrics = new RunMetricsFollower(pass);
  run.log.forEach((event, index) => {
    pass.accept(event, index);
  });
  const { wallMs: _wall, speedup: _speedup, ...rest } = metrics.finish(run, spec);
  return { checks: judgements.map(([name, judgement]) => [name, judgement.finish()]), metrics: rest };
}

describe("routing a history pass", () => {
  it("leaves group metrics as they were: the last state counts for the peak when only unread events follow it", () => {
    const member = (id: string) =>
      actor(id, "consumer", { consumer: { "group.id": "g" }, subscription: ["T"], topics: [{ name: "T", id: "T-id", partitions: 2 }] });
    const spec = testSpec({ durationUs: 100_000_000, actors: [member("a"), member("b")] });
    const o = (t: number, who: string, observation: Record<string, unknown>): HistoryEvent => ({
      t,
      ev: "obs",
      actor: who,
      o: observation as Observation,
    });
    const owned = (t: number, who: string, partition: number) =>
      o(t, who, { type: "member.owned", groupId: "g", memberId: who, memberEpoch: 1, owned: { T: [partition] }, cause: "assigned" });
    const poll = (t: number) => o(t, "a", { type: "member.poll", memberId: "a", records: 0 });
    const events: HistoryEvent[] = [
      { t: 0, ev: "life", actor: "a", what: "start", detail: null },
      { t: 0, ev: "life", actor: "b", what: "start", detail: null },
      o(1, "coordinator-0", { type: "gc.group", groupId: "g", protocol: "consumer", groupEpoch: 1, assignmentEpoch: 1, state: "STABLE" }),
      owned(2, "a", 0),
      owned(3, "b", 1),
      { t: 10_000_000, ev: "life", actor: "b", what: "crash", detail: null },
      poll(20_000_000),
      poll(30_000_000),
    ];
    const metrics = (routed: boolean) => {
      const pass = new HistoryPass(spec, { routed });
      const groups = followGroupMetrics(pass);
      pass.acceptAll(events);
      return groups.map((group) => group.finish(spec.durationUs));
    };
    const [group] = metrics(true);
    expect([group?.peakUnowned, group?.unownedPartitionSeconds, group?.rebalances]).toEqual([1, 90, 1]);
    expect(metrics(true)).toEqual(metrics(false));
  });

  // Groups that rebalance, crash, heal and consume: every checker and group metric has something to follow.
  const runs: [string, number, number][] = [
    ["chaos-consumer", 2, 90_000_000],
    ["chaos-data", 1, 60_000_000],
    ["m10-join", 1, 60_000_000],
    ["session-timeout", 1, 60_000_000],
    ["static-restart", 1, 60_000_000],
  ];

  it.each(runs)(
    "changes no verdict and no metric: %s seed %i",
    (name, seed, durationUs) => {
      const file = loadScenarioFile(fileURLToPath(new URL(`../../../scenarios/${name}.json`, import.meta.url)));
      const full = toSimulationSpec(file, { seed });
      const spec = { ...full, durationUs: Math.min(full.durationUs, durationUs) };
      const run = new InlineHost(spec, DEFAULT_REGISTRY).run();
      const routed = judged(spec, run, true);
      expect(routed.metrics.groups.length).toBeGreaterThan(0);
      expect(routed).toEqual(judged(spec, run, false));
    },
    120_000,
  );
});
