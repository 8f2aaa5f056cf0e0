import { type Actor, type ActorId, type Context, encode, type JsonValue, type Message, type Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  type ActorRegistry,
  type ArmedTimer,
  DEFAULT_NETWORK,
  type HistoryEvent,
  InlineHost,
  type NemesisStep,
  type SimulationSpec,
} from "../src/index.js";
import { actor, testSpec } from "./helpers.js";

function throwsTypeError(change: () => void): boolean {
  try {
    change();
    return false;
  } catch (error) {
    return error instanceof TypeError;
  }
}

/** A scripted actor for probing the cell: it records what it sees in observations. */
class Probe implements Actor {
  #received: Message[] = [];
  constructor(private readonly config: Record<string, JsonValue>) {}

  start(ctx: Context): void {
    ctx.observe({ type: "probe.start", log: ctx.storage.length });
    ctx.storage.append({ boot: ctx.now() });
    if (this.config.tick) ctx.setTimer("tick", 10_000);
    if (this.config.replace) {
      ctx.setTimer("t", 50_000);
      ctx.setTimer("t", 20_000); // replaces: fires once, at 20 ms
      ctx.setTimer("cancelled", 5_000);
      ctx.cancelTimer("cancelled");
    }
    if (this.config.rearm) {
      ctx.setTimer("t", 30_000);
      ctx.setTimer("c", 10_000);
    }
    if (this.config.churn) {
      ctx.setTimer("beat", 10_000);
      ctx.setTimer("once", 5_000);
    }
    if (typeof this.config.peer === "string") {
      const message: Message = { type: "SimPing", seq: 1, payload: "original" };
      ctx.send(this.config.peer, message);
      ctx.observe({
        type: "probe.mutated",
        threw: throwsTypeError(() => ((message as { payload: string }).payload = "mutated after send")),
      });
    }
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#received.push(message);
    if (message.type === "SimPing") {
      ctx.observe({ type: "probe.got", from, payload: message.payload });
      ctx.observe({
        type: "probe.mutated",
        threw: throwsTypeError(() => ((message as { payload: string }).payload = "mutated on receipt")),
      });
    }
    if (message.type === "SimPing" && message.payload === "boom") throw new Error("planted failure");
  }

  clockStepped(ctx: Context): void {
    ctx.observe({ type: "probe.clock-stepped", now: ctx.now() });
  }

  fire(timer: string, ctx: Context): void {
    ctx.observe({ type: "probe.fire", timer });
    if (timer === "tick") ctx.setTimer("tick", 10_000);
    if (timer === "beat") {
      // Armed again while it fires, four times; cancelled at the fourth.
      const during = ctx.hasTimer("beat");
      ctx.setTimer("beat", 10_000);
      const rearmed = ctx.hasTimer("beat");
      if (ctx.now() >= 40_000) ctx.cancelTimer("beat");
      ctx.observe({ type: "probe.beat", during, rearmed, after: ctx.hasTimer("beat") });
    }
    if (timer === "c") {
      // Cancelled while queued, then armed again: the cell re-keys the cancelled timer instead of making a new one.
      ctx.cancelTimer("t");
      ctx.setTimer("t", 25_000);
    }
  }
}

const registry: ActorRegistry = new Map([["probe", (_id: string, config: JsonValue) => new Probe(config as Record<string, JsonValue>)]]);

function run(actors: ReturnType<typeof actor>[], nemesis: NemesisStep[] = [], durationUs = 100_000) {
  return new InlineHost(testSpec({ actors, nemesis, durationUs }), registry).run();
}

/** Every timer the host's core is asked to queue from now on, in order (the cell's entries themselves). */
function timersScheduled(host: InlineHost): ArmedTimer[] {
  const scheduled: ArmedTimer[] = [];
  const schedule = host.core.scheduleTimer.bind(host.core);
  host.core.scheduleTimer = (timer: ArmedTimer) => {
    scheduled.push(timer);
    schedule(timer);
  };
  return scheduled;
}

/** An observation with when and by whom (the spread of an index-signature type loses the signature: named here). */
type Observed = Observation & { readonly t: number; readonly actor: string };

const observations = (result: ReturnType<typeof run>, type: string): Observed[] =>
  result.events.flatMap((e) => (e.ev === "obs" && e.o.type === type ? [{ ...e.o, t: e.t, actor: e.actor }] : []));

describe("actor cells", () => {
  it("replace a timer armed twice under one name, and never fire a cancelled one", () => {
    const fires = observations(run([actor("p", "probe", { replace: true })]), "probe.fire");
    expect(fires).toEqual([{ type: "probe.fire", timer: "t", t: 20_000, actor: "p" }]);
  });

  it("fire a timer cancelled and armed again once, at its new time, reusing the cancelled timer's entry", () => {
    const host = new InlineHost(testSpec({ actors: [actor("p", "probe", { rearm: true })], durationUs: 100_000 }), registry);
    const scheduled = timersScheduled(host);
    const fires = observations(host.run(), "probe.fire");
    expect(fires.map((o) => [o.timer, o.t])).toEqual([
      ["c", 10_000],
      ["t", 35_000],
    ]);
    const armsOfT = scheduled.filter((timer) => timer.name === "t");
    expect(armsOfT).toHaveLength(2);
    expect(armsOfT[1]).toBe(armsOfT[0]);
    expect(host.cell("p")?.armedTimers).toBe(0);
  });

  it("keep the entry of a name armed again and again, and let a name armed once leave the table", () => {
    const host = new InlineHost(testSpec({ actors: [actor("p", "probe", { churn: true })], durationUs: 100_000 }), registry);
    const scheduled = timersScheduled(host);
    const result = host.run();
    expect(observations(result, "probe.fire").map((o) => [o.timer, o.t])).toEqual([
      ["once", 5_000],
      ["beat", 10_000],
      ["beat", 20_000],
      ["beat", 30_000],
      ["beat", 40_000],
    ]);
    // Disarmed while it fires, armed after setTimer, and not after the last cancel.
    expect(observations(result, "probe.beat").map((o) => [o.during, o.rearmed, o.after])).toEqual([
      [false, true, true],
      [false, true, true],
      [false, true, true],
      [false, true, false],
    ]);
    const beats = scheduled.filter((timer) => timer.name === "beat");
    expect(beats).toHaveLength(5);
    expect(new Set(beats).size).toBe(1);
    // Kept from its second arming on (it came back as the spare); the name armed once was never kept.
    expect(beats[0]?.kept).toBe(true);
    expect(scheduled.find((timer) => timer.name === "once")?.kept).toBe(false);
    expect(host.cell("p")?.armedTimers).toBe(0);
  });

  it("seal what is sent: neither the sender (afterwards) nor the receiver can change a message", () => {
    const result = run([actor("a", "probe", { peer: "b" }), actor("b", "probe")]);
    expect(observations(result, "probe.got").map((o) => o.payload)).toEqual(["original"]);
    expect(observations(result, "probe.mutated").map((o) => [o.actor, o.threw])).toEqual([
      ["a", true],
      ["b", true],
    ]);
  });

  it("seal what is sent in a run whose sizes nothing reads as well, without sizing it unless a bandwidth fault reads them", () => {
    const actors = [actor("a", "probe", { peer: "b" }), actor("b", "probe")];
    const unrecorded = (spec: SimulationSpec) => {
      const seen: HistoryEvent[] = [];
      const result = new InlineHost(spec, registry, {
        history: { recorded: false, follower: { accept: (event) => seen.push(event) } },
        unsizedMessages: true,
      }).run();
      return { result, seen };
    };
    const recorded = run(actors);
    const judged = unrecorded(testSpec({ actors, durationUs: 100_000 }));
    const mutated = (events: readonly HistoryEvent[]) =>
      events.flatMap((e) => (e.ev === "obs" && e.o.type === "probe.mutated" ? [[e.actor, e.o.threw]] : []));
    expect(mutated(judged.seen)).toEqual([
      ["a", true],
      ["b", true],
    ]);
    expect(judged.seen.filter((e) => e.ev === "obs").map((e) => JSON.stringify(e))).toEqual(
      recorded.events.filter((e) => e.ev === "obs").map((e) => JSON.stringify(e)),
    );
    const ping = encode({ type: "SimPing", seq: 1, payload: "original" }).length;
    expect(recorded.router.byType.SimPing).toEqual({ count: 1, bytes: ping });
    expect(judged.result.router.byType.SimPing).toEqual({ count: 1, bytes: 0 });
    expect(judged.result.router.bytes).toBe(0);
    // Unless the caller says nothing reads them, a run that records no history sizes its messages too.
    const sized = new InlineHost(testSpec({ actors, durationUs: 100_000 }), registry, { history: { recorded: false } }).run();
    expect(sized.router.bytes).toBe(recorded.router.bytes);
    // A bandwidth fault reads each message's size: the run sizes them, and the ping crosses the link as late.
    const slow = {
      network: DEFAULT_NETWORK,
      messageFaults: [{ name: "slow", types: ["SimPing"], bandwidth: { bytesPerSecond: 100 } }],
      partitions: [],
    };
    const slowSpec = testSpec({ actors, durationUs: 1_000_000, plan: slow });
    const slowRecorded = new InlineHost(slowSpec, registry).run();
    const slowJudged = unrecorded(slowSpec);
    expect(slowJudged.result.router.bytes).toBe(slowRecorded.router.bytes);
    const got = (events: readonly HistoryEvent[]) => events.filter((e) => e.ev === "obs" && e.o.type === "probe.got").map((e) => e.t);
    expect(got(slowJudged.seen)).toEqual(got(slowRecorded.events));
    expect(got(slowRecorded.events)[0]).toBeGreaterThan((ping * 1_000_000) / 100);
  });

  it("lose volatile state on a crash but keep the durable log for the restart", () => {
    const result = run(
      [actor("p", "probe", { tick: true })],
      [
        { atUs: 35_000, actor: "p", control: { action: "crash" } },
        { atUs: 60_000, actor: "p", control: { action: "restart" } },
      ],
    );
    expect(observations(result, "probe.start").map((o) => o.log)).toEqual([0, 1]);
    const ticks = observations(result, "probe.fire").map((o) => o.t);
    // Ticks every 10 ms, none while down (35-60 ms), then again 10 ms after the restart.
    expect(ticks).toEqual([10_000, 20_000, 30_000, 70_000, 80_000, 90_000, 100_000]);
    expect(result.events.filter((e) => e.ev === "life").map((e) => (e.ev === "life" ? e.what : ""))).toEqual(["start", "crash", "restart"]);
  });

  it("hold everything while paused and run it at resume, in order", () => {
    const result = run(
      [actor("p", "probe", { tick: true })],
      [
        { atUs: 15_000, actor: "p", control: { action: "pause" } },
        { atUs: 47_000, actor: "p", control: { action: "resume" } },
      ],
    );
    const ticks = observations(result, "probe.fire").map((o) => o.t);
    // The 20 ms tick is held (the re-arm happens only when it runs, at 47 ms).
    expect(ticks).toEqual([10_000, 47_000, 57_000, 67_000, 77_000, 87_000, 97_000]);
  });

  it("tell a running actor of a clock step at once, a paused one when it resumes (once), and a down one never", () => {
    const result = run(
      [actor("p", "probe")],
      [
        { atUs: 10_000, actor: "p", control: { action: "clock-step", deltaUs: 5_000 } },
        { atUs: 20_000, actor: "p", control: { action: "pause" } },
        { atUs: 25_000, actor: "p", control: { action: "clock-step", deltaUs: -2_000 } },
        { atUs: 27_000, actor: "p", control: { action: "clock-step", deltaUs: 1_000 } },
        { atUs: 30_000, actor: "p", control: { action: "resume" } },
        { atUs: 40_000, actor: "p", control: { action: "crash" } },
        { atUs: 45_000, actor: "p", control: { action: "clock-step", deltaUs: 3_000 } },
        { atUs: 50_000, actor: "p", control: { action: "restart" } },
        { atUs: 60_000, actor: "p", control: { action: "pause" } },
        { atUs: 65_000, actor: "p", control: { action: "crash" } },
        { atUs: 66_000, actor: "p", control: { action: "clock-step", deltaUs: 1_000 } },
        { atUs: 70_000, actor: "p", control: { action: "restart" } },
      ],
    );
    // Its clock reads virtual time + every step so far: 5 ms ahead at 10 ms; 4 ms ahead when it resumes at 30 ms.
    // Stepped while down (45 and 66 ms; paused before the second crash): nothing, then or at the restarts.
    expect(observations(result, "probe.clock-stepped").map((o) => [o.t, o.now])).toEqual([
      [10_000, 15_000],
      [30_000, 34_000],
    ]);
  });

  it("hand every actor of every run a context whose methods are the same functions (and whose random stands alone)", () => {
    const contexts: Context[] = [];
    const draws: number[] = [];
    const capturing: ActorRegistry = new Map([
      [
        "capture",
        () => ({
          start(ctx: Context) {
            contexts.push(ctx);
            // A UniformSource that may be handed around, as the random helpers take it.
            const draw = ctx.random;
            draws.push(draw());
          },
          receive() {},
          fire() {},
        }),
      ],
    ]);
    for (let runs = 0; runs < 2; runs++) {
      new InlineHost(testSpec({ actors: [actor("a", "capture"), actor("b", "capture")], durationUs: 1_000 }), capturing).run();
    }
    expect(contexts).toHaveLength(4);
    const [first, ...others] = contexts as [Context, ...Context[]];
    for (const ctx of others) {
      // One function per method for all cells: a call site in actor code keeps one target from cell to cell and run to run.
      expect(ctx.now).toBe(first.now);
      expect(ctx.send).toBe(first.send);
      expect(ctx.setTimer).toBe(first.setTimer);
      expect(ctx.observe).toBe(first.observe);
      expect(ctx.storage.append).toBe(first.storage.append);
      expect(ctx.self).not.toBe(undefined);
    }
    expect(draws.every((value) => value >= 0 && value < 1)).toBe(true);
    // The same seed, the same actor ids: each run's draws are the same.
    expect(draws.slice(2)).toEqual(draws.slice(0, 2));
  });

  it("record an actor's exception with its stack and apply the restart policy; other actors carry on", () => {
    const host = new InlineHost(
      testSpec({ actors: [actor("p", "probe", { tick: true }), actor("q", "probe", { tick: true })], durationUs: 100_000 }),
      registry,
    );
    host.core.injectFrame(24_000, "x", "p", encode({ type: "SimPing", seq: 9, payload: "boom" }));
    const result = host.run();
    const errors = result.events.filter((e) => e.ev === "error");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ actor: "p", during: "receive SimPing from x", message: "Error: planted failure" });
    // Only the actor's frames, then the cell's entry into actor code as "at <anonymous>" (as history format 6 has it).
    expect(errors[0]?.ev === "error" && errors[0].stack).toBe("at Probe.receive\nat <anonymous>");
    // Crashed at 24 ms, restarted 10 ms later by the policy (durable log kept); q never noticed.
    expect(
      observations(result, "probe.start")
        .filter((o) => o.actor === "p")
        .map((o) => [o.t, o.log]),
    ).toEqual([
      [0, 0],
      [34_000, 1],
    ]);
    expect(observations(result, "probe.fire").filter((o) => o.actor === "q")).toHaveLength(10);
  });
});
