import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Checker } from "../src/checkers/checker.js";
import { History } from "../src/history/history.js";
import type { HistoryEvent, HistoryHeader } from "../src/history/history-event.js";
import { runHuntTask } from "../src/hunt/run-hunt-task.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import type { ScenarioFile } from "../src/scenario/scenario-schema.js";
import { historyHashOfLines } from "./failure-dir-checks.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const scenario = (name: string): ScenarioFile => loadScenarioFile(join(root, "scenarios", `${name}.json`));

const header: HistoryHeader = { kcsim: "history", format: 8, seed: 1, scenario: "s", versions: { kcsim: "0", protocol: "0" } };
const events: HistoryEvent[] = [
  { ev: "obs", t: 0, actor: "a", o: { type: "x", n: 1 } },
  { ev: "life", t: 5, actor: "a", what: "start", detail: null },
  { ev: "obs", t: 9, actor: "b", o: { type: "y", list: [1, 2] } },
] as unknown as HistoryEvent[];

describe("a history that is not recorded", () => {
  it("hands every event to its follower with its index, and encodes, hashes and keeps nothing", () => {
    const seen: [HistoryEvent, number][] = [];
    const history = new History(header, { recorded: false, follower: { accept: (event, index) => seen.push([event, index]) } });
    for (const event of events) history.record(event);
    expect(seen).toEqual(events.map((event, index) => [event, index]));
    expect(history.length).toBe(3);
    expect(history.bytes).toBe(0);
    expect(history.log.length).toBe(0);
    expect(history.finish()).toBe("");
    expect(() => history.record(events[0] as HistoryEvent)).toThrow(/already finished/);
  });

  it("keeps the order of events held back (hold/release) as a recorded one does", () => {
    const seen: number[] = [];
    const history = new History(header, { recorded: false, follower: { accept: (event) => seen.push(event.t) } });
    history.hold();
    for (const event of events) history.record(event);
    expect(seen).toEqual([]);
    history.release();
    expect(seen).toEqual([0, 5, 9]);
  });

  it("refuses to write lines it does not make", () => {
    expect(() => new History(header, { recorded: false, onLine: () => {} })).toThrow(/not recorded has no lines/);
  });
});

describe("runScenario judgedOnly", () => {
  it("reaches the verdicts and metrics of the recorded run, without a hash", async () => {
    const base = { ...scenario("static-restart"), durationMs: 60_000, bugs: ["static-rejoin-bumps-epoch"] };
    const recorded = await runScenario(base, { host: "inline", seed: 1 });
    const judged = await runScenario(base, { host: "inline", seed: 1, judgedOnly: true });
    expect(Object.values(recorded.summary.checks).some((check) => !check.ok)).toBe(true);
    expect(judged.summary.checks).toEqual(recorded.summary.checks);
    const {
      historyEvents: _recordedEvents,
      wallMs: _w1,
      speedup: _s1,
      bytes: recordedBytes,
      messagesByType: recordedTypes,
      ...recordedMetrics
    } = recorded.summary.metrics;
    const {
      historyEvents: judgedEvents,
      wallMs: _w2,
      speedup: _s2,
      bytes: judgedBytes,
      messagesByType: judgedTypes,
      ...judgedMetrics
    } = judged.summary.metrics;
    expect(judgedMetrics).toEqual(recordedMetrics);
    expect(judgedEvents).toBe(0);
    // Nothing read the sizes, so the judged run did not size its messages: the same messages of each type, 0 bytes.
    expect(recordedBytes).toBeGreaterThan(0);
    expect(judgedBytes).toBe(0);
    expect(judgedTypes).toEqual(Object.fromEntries(Object.entries(recordedTypes).map(([type, { count }]) => [type, { count, bytes: 0 }])));
    expect(recorded.summary.historyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(judged.summary.historyHash).toBe("");
    expect(judged.result.log.length).toBe(0);
  }, 60_000);

  it("hands a checker that reads the whole history afterwards the events as a recorded run decodes them", async () => {
    let seen: readonly HistoryEvent[] = [];
    const keepsEvents: Checker = {
      name: "keeps-events",
      description: "reads the history as an array",
      check(all) {
        seen = all;
        return { ok: true, violations: [] };
      },
    };
    // Exactly-once and sink scenarios: their checkers read arrays, and their observations are the richest.
    for (const [name, durationMs] of [
      ["chaos-eos", 40_000],
      ["eos-zombie", 90_000],
      ["sink-upsert", 60_000],
    ] as const) {
      const base = { ...scenario(name), durationMs };
      const recorded = await runScenario(base, { host: "inline", seed: 2, checkers: [keepsEvents] });
      const decoded = JSON.stringify(recorded.result.log.toArray());
      expect(JSON.stringify(seen), name).toBe(decoded);
      const judged = await runScenario(base, { host: "inline", seed: 2, checkers: [keepsEvents], judgedOnly: true });
      expect(judged.summary.historyHash, name).toBe("");
      // The events themselves, at the end of the run: had an actor changed one after recording it, they would differ.
      expect(JSON.stringify(seen), name).toBe(decoded);
      expect(judged.summary.checks, name).toEqual(recorded.summary.checks);
    }
  }, 120_000);
});

describe("runScenario judgedOnly past its kept-events limit", () => {
  it("runs again with its history recorded, with the same verdicts", async () => {
    const base = { ...scenario("eos-zombie"), durationMs: 30_000 };
    const recorded = await runScenario(base, { host: "inline", seed: 1 });
    const within = await runScenario(base, { host: "inline", seed: 1, judgedOnly: true });
    const past = await runScenario(base, { host: "inline", seed: 1, judgedOnly: true, keptEventsLimit: 100 });
    expect(recorded.result.log.length).toBeGreaterThan(100);
    expect(within.summary.historyHash).toBe("");
    expect(past.summary.historyHash).toBe(recorded.summary.historyHash);
    expect(past.summary.checks).toEqual(recorded.summary.checks);
    expect(within.summary.checks).toEqual(recorded.summary.checks);
  }, 60_000);
});

describe("a hunt run", () => {
  it("gives the same result for a failing seed whether judged first without its history or recorded from the start", async () => {
    const base = { ...scenario("static-restart"), durationMs: 60_000 };
    const bugged = { base, seed: 1, asWritten: true, protocol: null, bugs: ["static-rejoin-bumps-epoch"] };
    // A passing run first: the next run in this thread is judged without its history, then run again recorded.
    const clean = await runHuntTask({ base, seed: 1, asWritten: true, protocol: null });
    expect(clean.failures).toEqual([]);
    expect(clean.historyHash).toBe("");
    const afterPass = await runHuntTask(bugged);
    // After a failing run the next one is recorded from the start.
    const afterFail = await runHuntTask(bugged);
    expect(afterPass.failures.length).toBeGreaterThan(0);
    const { wallMs: _a, ...first } = afterPass;
    const { wallMs: _b, ...second } = afterFail;
    expect(first).toEqual(second);
    const plain = await runScenario(afterPass.scenario, { host: "inline", seed: 1 });
    expect(afterPass.historyHash).toBe(plain.summary.historyHash);
  }, 120_000);

  it("keeps a failing seed's history lines (--history) from its recorded run, the same lines either way", async () => {
    const base = { ...scenario("static-restart"), durationMs: 60_000 };
    const bugged = { base, seed: 1, asWritten: true, protocol: null, bugs: ["static-rejoin-bumps-epoch"], withHistory: true };
    await runHuntTask({ base, seed: 1, asWritten: true, protocol: null });
    // Judged first: the recorded re-run writes the lines; recorded first: a run for the lines alone.
    const afterPass = await runHuntTask(bugged);
    const afterFail = await runHuntTask(bugged);
    expect(afterPass.history).toBeDefined();
    expect(afterPass.history).toBe(afterFail.history);
    expect(historyHashOfLines(afterPass.history as string)).toBe(afterPass.historyHash);
  }, 120_000);
});
