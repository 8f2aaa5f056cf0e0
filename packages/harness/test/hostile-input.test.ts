import { describe, expect, it } from "vitest";
import { converges } from "../src/checkers/converges.js";
import { assignServerSide } from "../src/cli/commands/assign.js";
import { parseFlags } from "../src/cli/parse-flags.js";
import { UsageError } from "../src/cli/usage-error.js";
import { formatSeedRanges, parseSeedRanges, seedsLeft } from "../src/hunt/seed-ranges.js";
import { shrink } from "../src/hunt/shrink.js";
import { InlineHost, runScenario, ScenarioError, toSimulationSpec, validateScenario } from "../src/index.js";
import { settingsErrorAtStart } from "../src/run/settings-error.js";
import { MAX_DURATION_MS, MAX_GROUP_COST, MAX_MEMBERS, MAX_PARTITIONS, MAX_SEED } from "../src/scenario/limits.js";
import { actor, testSpec } from "./helpers.js";
import { shipped } from "./kcsim-cli.js";

/** The one-line ScenarioError a scenario gets, or "accepted". */
function problem(value: unknown): string {
  try {
    validateScenario(value, "s.json");
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    const message = (error as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    return message;
  }
  return "accepted";
}

type Json = Record<string, unknown>;
const clone = <T>(value: T): T => structuredClone(value);
const groupOf = (scenario: Json, i = 0) => (scenario.groups as Json[])[i] as Json;

describe("settings are checked when the scenario is loaded, against each actor's own ConfigDef", () => {
  it("a bad consumer, app, source, producer, workload or broker value is one line naming where it was written", () => {
    const m10 = shipped("m10-join");
    const bad = (mutate: (s: Json) => void) => {
      const s = clone(m10);
      mutate(s);
      return problem(s);
    };
    expect(bad((s) => (groupOf(s).consumer = { "max.poll.interval.ms": -5 }))).toBe(
      "s.json: groups[0] (member-1): consumer member config: 'consumer' is invalid: consumer config 'max.poll.interval.ms' = -5 is below the minimum 1",
    );
    expect(bad((s) => (groupOf(s).consumer = { "auto.offset.reset": "sometimes" }))).toMatch(
      /^s\.json: groups\[0\] \(member-1\): .*'auto\.offset\.reset' = "sometimes" is not one of earliest, latest, none$/,
    );
    expect(bad((s) => (groupOf(s).app = { processingMsPerRecord: "x" }))).toMatch(
      /^s\.json: groups\[0\] \(member-1\): .*processingMsPerRecord/,
    );
    expect(bad((s) => (groupOf(s).source = { kind: "synthetic", recordsPerSecondPerPartition: -1 }))).toMatch(
      /^s\.json: groups\[0\] \(member-1\): .*recordsPerSecondPerPartition/,
    );
    expect(bad((s) => ((s.cluster as Json).broker = { "offsets.topic.num.partitions": 0 }))).toMatch(
      /^s\.json: cluster \(group coordinator\): .*'offsets\.topic\.num\.partitions' = 0 is below the minimum 1$/,
    );
    const data = shipped("chaos-data");
    const producers = (s: Json) => (s.producers as Json[])[0] as Json;
    const d1 = clone(data);
    producers(d1).producer = { acks: "2" };
    expect(problem(d1)).toMatch(/^s\.json: producers\[0\] \(producer-1\): .*acks/);
    const d2 = clone(data);
    (producers(d2).workload as Json).valueBytes = { dist: "fixed", bytes: 1e308 };
    expect(problem(d2)).toMatch(/^s\.json: producers\[0\] \(producer-1\): .*valueBytes/);
  });

  it("an unknown actor kind, a zero pinger timeout and an unknown pinger setting are refused (they crashed or looped before)", () => {
    const pp = shipped("ping-pong");
    const actors = (s: Json) => s.actors as Json[];
    const kind = clone(pp);
    (actors(kind)[0] as Json).kind = "nope";
    expect(problem(kind)).toMatch(/^s\.json: actors\[0\]\.kind: unknown actor kind 'nope' \(known: pinger, ponger, /);
    const zero = clone(pp);
    ((actors(zero)[0] as Json).config as Json).timeoutMs = 0;
    expect(problem(zero)).toBe("s.json: actors[0].config: pinger config 'timeoutMs' = 0 is below the minimum 1");
    const typo = clone(pp);
    ((actors(typo)[0] as Json).config as Json).timeOutMs = 5;
    expect(problem(typo)).toBe("s.json: actors[0].config: unknown pinger config 'timeOutMs'");
    const restart = { ...clone(pp), restartPolicy: { mode: "restart", delayMs: 0 } };
    expect(problem(restart)).toBe("s.json: restartPolicy.delayMs: Expected number to be greater or equal to 1");
  });

  it("seeds are safe integers, and sizes stay within the documented limits, each named in one line", () => {
    const pp = shipped("ping-pong");
    expect(problem({ ...pp, seed: 2 ** 60 })).toBe(`s.json: seed: Expected integer to be less or equal to ${MAX_SEED}`);
    expect(problem({ ...pp, durationMs: 1e308 })).toBe(`s.json: durationMs: Expected number to be less or equal to ${MAX_DURATION_MS}`);
    const m10 = shipped("m10-join");
    const big = clone(m10);
    groupOf(big).members = 1e9;
    expect(problem(big)).toBe(`s.json: groups[0].members: Expected integer to be less or equal to ${MAX_MEMBERS}`);
    const wide = clone(m10);
    ((wide.cluster as Json).topics as Json[])[0] = { name: "T1", partitions: 1e9 };
    expect(problem(wide)).toBe(`s.json: cluster.topics[0].partitions: Expected integer to be less or equal to ${MAX_PARTITIONS}`);
    const costly = clone(m10);
    ((costly.cluster as Json).topics as Json[])[0] = { name: "T1", partitions: 27_000 };
    groupOf(costly).members = 3_000;
    delete groupOf(costly).joins;
    expect(problem(costly)).toBe(
      `s.json: groups[0]: 3000 members on 27000 partitions (81000000 member-partitions): more than the limit of ${MAX_GROUP_COST} a run can hold`,
    );
    const nine = clone(m10);
    ((nine.cluster as Json).topics as Json[])[0] = { name: "T1", partitions: 9_000 };
    groupOf(nine).members = 1_000;
    delete groupOf(nine).joins;
    expect(problem(nine)).toBe("accepted");
  });

  it("what was silently ignored is refused: a replacement of a member that does not exist, an empty checker list, an unknown checker", () => {
    const r = clone(shipped("rolling-upgrade"));
    const group = groupOf(r);
    (group.replacements as Json[])[0] = { member: (group.members as number) + 1, atMs: 1000, protocol: "consumer" };
    expect(problem(r)).toMatch(/^s\.json: groups\[0\]\.replacements\[0\]\.member: member \d+ does not exist/);
    expect(problem({ ...shipped("ping-pong"), checkers: [] })).toBe("s.json: checkers: Expected array length to be greater or equal to 1");
    expect(problem({ ...shipped("ping-pong"), checkers: ["no-such-checker"] })).toMatch(
      /^s\.json: checkers\[0\]: unknown checker 'no-such-checker' \(known: /,
    );
  });

  it("flags: a negative value reaches the flag's own check instead of 'argument is ambiguous'", () => {
    const options = { seed: { type: "string" } } as const;
    expect(parseFlags("run", ["--seed", "-1"], options).values.seed).toBe("-1");
    expect(() => parseFlags("run", ["--bogus"], options)).toThrow(UsageError);
  });
});

describe("zero-delay loops are impossible", () => {
  it("an actor that throws at start is restarted no sooner than 1 ms later, whatever a spec asks (delay 0 looped forever)", () => {
    const registry = new Map([
      [
        "boom",
        () => {
          throw new Error("boom");
        },
      ],
    ]);
    const spec = testSpec({ actors: [actor("a", "boom")], durationUs: 10_000, restartPolicy: { mode: "restart", delayUs: 0 } });
    const result = new InlineHost(spec, registry).run();
    const restarts = result.events.filter((e) => e.ev === "life" && e.what === "restart").length;
    expect(restarts).toBe(10);
  });
});

describe("an actor that throws on its own settings at start is bad input, never a verdict", () => {
  it("a ConfigError at start becomes a ScenarioError naming the actor", () => {
    const error = settingsErrorAtStart("s", [
      { t: 0, ev: "error", actor: "member-1", during: "start", message: "ConfigError: consumer config 'x' = 1 is bad", stack: "" },
    ]);
    expect(error?.message).toBe("s: member-1 rejected its settings when it started: ConfigError: consumer config 'x' = 1 is bad");
    expect(settingsErrorAtStart("s", [{ t: 9, ev: "error", actor: "a", during: "timer t", message: "Error: boom", stack: "" }])).toBeNull();
  });
});

describe("converges judges only what the run saw", () => {
  const m10 = shipped("m10-join");
  const specOf = (extra: Json) => toSimulationSpec(validateScenario({ ...clone(m10), ...extra }, "s.json"));

  it("a nemesis step scheduled after the run's end counts for nothing (it used to fail the check without evidence)", async () => {
    const late = { durationMs: 60_000, nemesis: [{ atMs: 90_000, actor: "member-1", action: "crash" }] };
    const { summary } = await runScenario(validateScenario({ ...clone(m10), ...late }, "s.json"), { host: "inline" });
    expect(summary.checks.converges).toEqual({ ok: true, violations: [] });
  });

  it("a fault with no end is 'not judged', not a vacuous pass", () => {
    const result = converges.check([], specOf({ faults: [{ name: "forever", drop: { probability: 0.01 } }] }));
    expect(result.ok).toBe(true);
    expect(result.notJudged).toBe("the faults never heal (message fault 'forever' has no endMs)");
    const late = converges.check([], specOf({ faults: [{ name: "late", startMs: 100_000, endMs: 200_000, drop: { probability: 0.5 } }] }));
    expect(late.notJudged).toMatch(/^the faults heal at 200000000 us, not before the run's end/);
  });
});

describe("'__proto__' is a legal name", () => {
  it("assign keeps a member and a topic named __proto__", () => {
    const input = {
      topics: new Map([
        ["__proto__", 3],
        ["orders", 2],
      ]),
      members: [
        { id: "__proto__", instanceId: null, subscriptions: ["__proto__", "orders"], owned: [], generation: -1 },
        { id: "m2", instanceId: null, subscriptions: ["orders", "__proto__"], owned: [], generation: -1 },
      ],
    };
    const assignment = assignServerSide("range", input);
    expect(Object.keys(assignment).sort()).toEqual(["__proto__", "m2"]);
    expect(JSON.stringify(assignment)).toBe('{"__proto__":{"__proto__":[0,1],"orders":[0]},"m2":{"__proto__":[2],"orders":[1]}}');
  });

  it("a run with a topic named __proto__ is judged (contiguous-offsets crashed after the run)", async () => {
    const m10 = clone(shipped("m10-join"));
    ((m10.cluster as Json).topics as Json[])[0] = { name: "__proto__", partitions: 12 };
    groupOf(m10).subscription = ["__proto__"];
    groupOf(m10).members = 3;
    delete groupOf(m10).joins;
    const { summary } = await runScenario(validateScenario({ ...m10, durationMs: 20_000 }, "s.json"), { host: "inline" });
    expect(summary.checks["contiguous-offsets"]?.ok).toBe(true);
    expect(summary.metrics.groups[0]?.partitions).toBe(12);
  });
});

describe("hunt seeds", () => {
  it("parse as safe integers, lists and ranges; the seeds left are what is not finished", () => {
    expect(parseSeedRanges("99999999999999999999")).toMatch(/a seed must be an integer from 0 to 9007199254740991/);
    expect(parseSeedRanges("9007199254740991..9007199254740993")).toMatch(/9007199254740993: a seed must be/);
    expect(parseSeedRanges("-1")).toMatch(/^must be A\.\.B/);
    const ranges = parseSeedRanges("1..10,20");
    expect(ranges).toEqual([
      { from: 1, to: 10 },
      { from: 20, to: 20 },
    ]);
    if (typeof ranges === "string") throw new Error(ranges);
    expect(formatSeedRanges(seedsLeft(ranges, new Set([1, 2, 3, 5, 10])))).toBe("4,6..9,20");
  });
});

describe("shrink never claims what it did not see", () => {
  it("reruns the original first and refuses a checker that does not fail there (it used to write shrunk.json anyway)", async () => {
    const scenario = validateScenario({ ...shipped("sticky-leave") }, "s.json");
    await expect(shrink(scenario, { seed: 1, check: "converges", maxTrials: 3 })).rejects.toThrow(
      "shrink: converges passes on the original run with seed 1: nothing to shrink",
    );
    await expect(shrink(scenario, { seed: 1, check: "ping-pong-liveness", maxTrials: 3 })).rejects.toThrow(
      /^shrink: the run does not judge 'ping-pong-liveness'/,
    );
  });
});
