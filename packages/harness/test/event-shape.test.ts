import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { History } from "../src/history/history.js";
import type { HistoryEvent } from "../src/history/history-event.js";
import { DEFAULT_REGISTRY, InlineHost, loadScenarioFile, toSimulationSpec } from "../src/index.js";
import { ActorCell } from "../src/kernel/actor-cell.js";
import { armedTimer, controlEvent, deliveryEvent, lostWithBreak, type SimEvent } from "../src/kernel/event.js";

/** What decides an event object's shape for V8: its prototype and its own keys, in order. */
const shapeOf = (event: object): string => `${Object.getPrototypeOf(event)?.constructor?.name}: ${Object.keys(event).join(",")}`;

describe("queued events", () => {
  it("have one shape whatever their kind", () => {
    const delivery = deliveryEvent(5, "a", 1, 2, 0, "b", "a", "Ping", new Uint8Array(2), 3, 4);
    const shapes = new Set([
      shapeOf(delivery),
      shapeOf(lostWithBreak(delivery)),
      shapeOf(deliveryEvent(5, "!inject", 0, 0, 0, "b", "a", "?", new Uint8Array(1), 0)),
      shapeOf(armedTimer(5, "a", 1, 2, "a", "hb")),
      shapeOf(controlEvent(5, "!start", 0, 0, 0, "a", { action: "start" })),
    ]);
    expect([...shapes]).toHaveLength(1);
    expect(lostWithBreak(delivery)).toMatchObject({ lostWithBreak: true, due: 5, seq: 2, conn: 3, toRank: 4, msgType: "Ping" });
    expect(delivery.lostWithBreak).toBe(false);
  });

  it("reach the cells with one shape in a run with broken connections (break notices, deliveries lost with a break)", () => {
    const scenario = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/chaos-consumer.json", import.meta.url)));
    // The first 60 s hold heartbeat and commit losses (each breaks its connection) and the network partition.
    const spec = { ...toSimulationSpec(scenario, { seed: 1 }), durationUs: 60_000_000 };
    const shapes = new Map<string, number>();
    let notices = 0;
    let lost = 0;
    const handle = ActorCell.prototype.handle;
    ActorCell.prototype.handle = function (this: ActorCell, event: SimEvent) {
      const shape = shapeOf(event);
      shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
      if (event.kind === "deliver" && event.msgType === "SimDisconnect" && event.sub > 0) notices++;
      if (event.kind === "deliver" && event.lostWithBreak === true) lost++;
      return handle.call(this, event);
    };
    try {
      new InlineHost(spec, DEFAULT_REGISTRY).run();
    } finally {
      ActorCell.prototype.handle = handle;
    }
    // The rarer deliveries were there to be seen.
    expect(notices).toBeGreaterThan(0);
    expect(lost).toBeGreaterThan(0);
    expect([...shapes.keys()]).toHaveLength(1);
  });

  it("and the history's send and connection records have one shape each, faulted or not (JSON lines unchanged)", () => {
    const scenario = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/chaos-consumer.json", import.meta.url)));
    const spec = { ...toSimulationSpec(scenario, { seed: 1 }), durationUs: 60_000_000 };
    const shapes = new Map<string, Set<string>>();
    const lines = new Map<string, string>();
    const record = History.prototype.record;
    History.prototype.record = function (this: History, event: HistoryEvent) {
      if (event.ev === "send" || event.ev === "conn") {
        const seen = shapes.get(event.ev) ?? new Set<string>();
        seen.add(shapeOf(event));
        shapes.set(event.ev, seen);
        // One line of each variant: a fault, a break's times, or neither.
        const variant =
          event.ev === "send" ? `send ${event.fault !== undefined} ${event.conn !== undefined}` : `conn ${event.at !== undefined}`;
        if (!lines.has(variant)) lines.set(variant, JSON.stringify(event));
      }
      return record.call(this, event);
    };
    try {
      new InlineHost(spec, DEFAULT_REGISTRY).run();
    } finally {
      History.prototype.record = record;
    }
    expect([...(shapes.get("send") ?? [])]).toHaveLength(1);
    expect([...(shapes.get("conn") ?? [])]).toHaveLength(1);
    // Every variant was there, and its line leaves out the fields it does not have.
    expect([...lines.keys()].sort()).toEqual(["conn false", "conn true", "send false true", "send true true"]);
    expect(lines.get("send false true")).toMatch(
      /^\{"t":\d+,"ev":"send","from":"[^"]+","to":"[^"]+","type":"\w+","bytes":\d+,"fate":"\w+","at":\[[\d,]*\],"conn":-?\d+\}$/,
    );
    expect(lines.get("conn false")).not.toContain('"at"');
  });
});
