import { type Actor, type ActorId, type Context, encode, type JsonValue, type Message, type Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { type ActorRegistry, type ArmedTimer, InlineHost, type NemesisStep } from "../src/index.js";
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

  fire(timer: string, ctx: Context): void {
    ctx.observe({ type: "probe.fire", timer });
    if (timer === "tick") ctx.setTimer("tick", 10_000);
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
    const scheduled: ArmedTimer[] = [];
    const schedule = host.core.scheduleTimer.bind(host.core);
    host.core.scheduleTimer = (timer: ArmedTimer) => {
      scheduled.push(timer);
      schedule(timer);
    };
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

  it("seal what is sent: neither the sender (afterwards) nor the receiver can change a message", () => {
    const result = run([actor("a", "probe", { peer: "b" }), actor("b", "probe")]);
    expect(observations(result, "probe.got").map((o) => o.payload)).toEqual(["original"]);
    expect(observations(result, "probe.mutated").map((o) => [o.actor, o.threw])).toEqual([
      ["a", true],
      ["b", true],
    ]);
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
    expect(errors[0]?.ev === "error" && errors[0].stack).toMatch(/at Probe\.receive/);
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
