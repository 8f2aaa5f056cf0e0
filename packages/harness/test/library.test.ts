import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Actor, Context, Message } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { FIXTURE_REGISTRY_MODULE } from "../src/hosts/fixtures/fixture-registry.js";
import { type Checker, defineScenario, ScenarioError, simulate, ViolationList } from "../src/index.js";

/** Two ping-pong pairs whose pongers are actor kinds the run is given (kcsim has no "echo" or "faulty-ponger" of its own). */
const pairs = (ponger: string) =>
  defineScenario({
    name: "custom-pongers",
    durationMs: 2_000,
    actors: [
      { id: "pinger-1", kind: "pinger", config: { peer: "ponger-1", intervalMs: 50, timeoutMs: 40 } },
      { id: "ponger-1", kind: ponger },
      { id: "pinger-2", kind: "pinger", config: { peer: "ponger-2", intervalMs: 50, timeoutMs: 40 } },
      { id: "ponger-2", kind: ponger },
    ],
  });

/** A ponger written in the test: answers every ping, and observes that it did. */
class Echo implements Actor {
  start(): void {}
  receive(from: string, message: Message, ctx: Context): void {
    if (message.type !== "SimPing") return;
    ctx.observe({ type: "echo.answered", seq: message.seq });
    ctx.send(from, { type: "SimPong", seq: message.seq, payload: message.payload });
  }
  fire(): void {}
}

/** A checker of the caller's own: every ponger answered at least `least` pings. */
const answeredAtLeast = (least: number): Checker => ({
  name: "echo-answers",
  description: `every echo answered at least ${least} pings`,
  check(events, spec) {
    const violations = new ViolationList();
    for (const actor of spec.actors.filter((a) => a.kind === "echo")) {
      const answered = events.filter((e) => e.ev === "obs" && e.actor === actor.id && e.o.type === "echo.answered").length;
      if (answered < least) violations.add(spec.durationUs, `${actor.id} answered ${answered} pings`);
    }
    return violations.result();
  },
});

const pongs = (events: readonly { ev: string; o?: { type: string } }[]) =>
  events.filter((e) => e.ev === "obs" && e.o?.type === "ping.pong").length;

describe("the library (@kcsim/harness entry points)", () => {
  it("defineScenario validates at once: a mistake names its field", () => {
    expect(() => defineScenario({ name: "bad", durationMs: -1, actors: [] })).toThrow(
      new ScenarioError("bad: durationMs: Expected number to be greater than 0"),
    );
  });

  it("runs actors and checkers of the caller's own, inline, and the checker's verdict is in the summary and the report", async () => {
    const out = mkdtempSync(join(tmpdir(), "kcsim-library-"));
    const run = await simulate(pairs("echo"), { actors: new Map([["echo", () => new Echo()]]), checkers: [answeredAtLeast(10)], out });
    expect(run.ok).toBe(true);
    expect(Object.keys(run.summary.checks)).toEqual(["actor-exceptions", "echo-answers"]);
    expect(pongs(run.events)).toBeGreaterThan(20);
    expect(readFileSync(run.report ?? "", "utf8")).toContain("every echo answered at least 10 pings");
    // A checker that cannot hold fails the run, with its violations.
    const strict = await simulate(pairs("echo"), { actors: new Map([["echo", () => new Echo()]]), checkers: [answeredAtLeast(10_000)] });
    expect(strict.ok).toBe(false);
    expect(strict.failures.map((f) => f.check)).toEqual(["echo-answers"]);
    expect(strict.failures[0]?.violations[0]?.message).toMatch(/^ponger-1 answered \d+ pings$/);
    // A checker may not take the name of one of kcsim's.
    const clash: Checker = { ...answeredAtLeast(1), name: "single-owner" };
    await expect(simulate(pairs("echo"), { actors: new Map([["echo", () => new Echo()]]), checkers: [clash] })).rejects.toThrow(
      /checker 'single-owner' is registered twice/,
    );
  });

  it("runs custom actors from a module path on every host: inline and lockstep agree event for event, realtime pongs too", async () => {
    const inline = await simulate(pairs("faulty-ponger"), { actorsModule: FIXTURE_REGISTRY_MODULE });
    const lockstep = await simulate(pairs("faulty-ponger"), { actorsModule: FIXTURE_REGISTRY_MODULE, host: "lockstep" });
    expect(inline.ok).toBe(true);
    expect(pongs(inline.events)).toBeGreaterThan(20);
    expect(lockstep.summary.historyHash).toBe(inline.summary.historyHash);
    const realtime = await simulate(pairs("faulty-ponger"), { actorsModule: FIXTURE_REGISTRY_MODULE, host: "realtime", timeScale: 1 });
    expect(realtime.ok).toBe(true);
    expect(pongs(realtime.events)).toBeGreaterThan(0);
    // Without them, the kind is unknown; and a registry of functions cannot reach worker threads.
    await expect(simulate(pairs("faulty-ponger"))).rejects.toThrow(/unknown actor kind 'faulty-ponger'/);
    await expect(simulate(pairs("echo"), { actors: new Map([["echo", () => new Echo()]]), host: "lockstep" })).rejects.toThrow(
      /custom actors given as a registry run inline only/,
    );
  }, 120_000);

  it("keeps a run's actor logs one file per actor under <out>/logs", async () => {
    const out = mkdtempSync(join(tmpdir(), "kcsim-library-logs-"));
    await simulate(defineScenario({ ...pairs("faulty-ponger"), durationMs: 500 }), {
      actorsModule: FIXTURE_REGISTRY_MODULE,
      out,
      logLevel: "debug",
    });
    expect(readdirSync(join(out, "logs")).sort()).toEqual(["pinger-1.log", "pinger-2.log", "ponger-1.log", "ponger-2.log"]);
  });
});
