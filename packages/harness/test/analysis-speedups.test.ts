import { describe, expect, it } from "vitest";
import { analyseConsumption } from "../src/analysis/consumption.js";
import { OwnershipTimeline } from "../src/analysis/ownership-timeline.js";
import type { HistoryEvent } from "../src/history/history-event.js";
import { DEFAULT_NETWORK, Router } from "../src/index.js";

const owned = (t: number, actor: string, partitions: number[]): HistoryEvent => ({
  t,
  ev: "obs",
  actor,
  o: { type: "member.owned", memberId: actor, owned: { orders: partitions }, cause: "assign" },
});
const records = (t: number, actor: string, partition: number, first: number, last: number): HistoryEvent => ({
  t,
  ev: "obs",
  actor,
  o: {
    type: "member.records",
    memberId: actor,
    ranges: [{ topic: "orders", partition, firstOffset: first, lastOffset: last, count: last - first + 1 }],
  },
});

describe("analyses shared by checkers", () => {
  it("are computed once per history and again when it grows", () => {
    const events: HistoryEvent[] = [owned(1, "m1", [0]), records(2, "m1", 0, 0, 4)];
    const first = analyseConsumption(events);
    expect(analyseConsumption(events)).toBe(first);
    expect(analyseConsumption([...events])).not.toBe(first);
    events.push(records(3, "m1", 0, 7, 9));
    const grown = analyseConsumption(events);
    expect(grown).not.toBe(first);
    expect(grown.breaks).toHaveLength(1);
  });

  it("the ownership timeline's watched unowned count moves whenever ownership does, and only then", () => {
    const timeline = new OwnershipTimeline();
    const unowned = timeline.watchUnowned(["orders-0", "orders-1", "orders-2"]);
    timeline.apply({ t: 0, ev: "life", actor: "m1", what: "start", detail: null });
    timeline.apply(records(1, "m1", 0, 0, 0));
    expect(unowned.count).toBe(3);
    timeline.apply(owned(2, "m1", [0, 1]));
    expect(unowned.count).toBe(1);
    expect(timeline.unownedCount(["orders-0", "orders-1", "orders-2"])).toBe(1);
    timeline.apply({ t: 3, ev: "life", actor: "m1", what: "crash", detail: "nemesis" });
    expect(unowned.count).toBe(3);
    expect(timeline.unownedCount(["orders-0", "orders-1", "orders-2"])).toBe(3);
  });

  it("keeps a watched unowned count equal to counting again after every event", () => {
    const partitions = ["orders-0", "orders-1", "orders-2", "orders-3"];
    const timeline = new OwnershipTimeline();
    const watched = timeline.watchUnowned(partitions);
    const events: HistoryEvent[] = [
      { t: 0, ev: "life", actor: "m1", what: "start", detail: null },
      { t: 0, ev: "life", actor: "m2", what: "start", detail: null },
      owned(1, "m1", [0, 1, 2]),
      owned(2, "m2", [2, 3]),
      owned(3, "m1", [0]),
      { t: 4, ev: "obs", actor: "coordinator", o: { type: "gc.member-removed", groupId: "g", memberId: "m2", reason: "session-timeout" } },
      owned(5, "m1", [0, 1, 5]),
      {
        t: 6,
        ev: "obs",
        actor: "coordinator",
        o: { type: "gc.member", groupId: "g", memberId: "m2", memberEpoch: 3, assigned: {}, pendingRevocation: {} },
      },
      { t: 7, ev: "life", actor: "m1", what: "crash", detail: "nemesis" },
      { t: 8, ev: "life", actor: "m1", what: "restart", detail: null },
      owned(9, "m1", [1]),
    ];
    const seen: number[] = [];
    for (const event of events) {
      timeline.apply(event);
      expect(watched.count).toBe(timeline.unownedCount(partitions));
      seen.push(watched.count);
    }
    // The count really moved: all four unowned, none, some back after the fencing and the crash.
    expect(new Set(seen)).toEqual(new Set([4, 1, 0, 2, 3]));
  });

  it("moves only what a new owned set changes, and agrees with recounting the live owners after every event", () => {
    // A member that keeps most of its partitions moves only the others; the owners of every partition, the
    // conflicts an owned set reports and the watched count must be what counting from scratch gives.
    const actors = ["m1", "m2", "m3"];
    const partitions = [0, 1, 2, 3, 4, 5];
    const keys = partitions.map((p) => `orders-${p}`);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const timeline = new OwnershipTimeline();
    const watched = timeline.watchUnowned(keys);
    const liveOwners = (key: string) => actors.filter((a) => timeline.isLive(a) && timeline.ownedBy(a).has(key));
    let conflictsSeen = 0;
    for (const actor of actors) timeline.apply({ t: 0, ev: "life", actor, what: "start", detail: null });
    for (let t = 1; t <= 2_000; t++) {
      const actor = actors[random(actors.length)] as string;
      const roll = random(40);
      let event: HistoryEvent;
      if (roll < 34)
        event = owned(
          t,
          actor,
          partitions.filter(() => random(2) === 0),
        );
      else if (roll === 34) event = { t, ev: "life", actor, what: "crash", detail: "nemesis" };
      else if (roll < 37) event = { t, ev: "life", actor, what: "restart", detail: null };
      else if (roll === 37)
        event = {
          t,
          ev: "obs",
          actor: "coordinator",
          o: { type: "gc.member-removed", groupId: "g", memberId: actor, reason: "session-timeout" },
        };
      else
        event = {
          t,
          ev: "obs",
          actor: "coordinator",
          o: { type: "gc.member", groupId: "g", memberId: actor, memberEpoch: t, assigned: {}, pendingRevocation: {} },
        };
      timeline.apply(event);
      for (const key of keys) expect(new Set(timeline.ownersOf(key))).toEqual(new Set(liveOwners(key)));
      expect(watched.count).toBe(keys.filter((key) => liveOwners(key).length === 0).length);
      if (event.ev === "obs" && event.o.type === "member.owned" && timeline.isLive(actor)) {
        // Every partition of the new set that another live member owns too, in the set's order, this member last.
        const expected = keys.filter((key) => timeline.ownedBy(actor).has(key) && liveOwners(key).length > 1);
        expect(timeline.conflicts.map((c) => c.partition)).toEqual(expected);
        for (const conflict of timeline.conflicts) {
          expect(new Set(conflict.owners)).toEqual(new Set(liveOwners(conflict.partition)));
          expect(conflict.owners.at(-1)).toBe(actor);
        }
        conflictsSeen += timeline.conflicts.length;
      }
    }
    // The walk met conflicts and members that kept some partitions while losing others.
    expect(conflictsSeen).toBeGreaterThan(100);
  });
});

describe("router link state", () => {
  it("keeps FIFO per link and bandwidth per link and fault", () => {
    const router = new Router(
      {
        network: { ...DEFAULT_NETWORK, mode: "datagram", minLatencyMs: 0.5, latency: { dist: "fixed", ms: 1 } },
        messageFaults: [{ name: "slow", bandwidth: { bytesPerSecond: 1_000_000 } }],
        partitions: [],
      },
      1,
    );
    const ab1 = router.route(0, "a", "b", "T", 1_000);
    const ab2 = router.route(0, "a", "b", "T", 1_000);
    const ba = router.route(0, "b", "a", "T", 1_000);
    expect(ab1.at).toEqual([2_000]);
    expect(ab2.at).toEqual([3_000]);
    expect(ba.at).toEqual([2_000]);
  });
});
