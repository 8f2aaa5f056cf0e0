import type { JsonValue, Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { CHECKERS, type HistoryEvent } from "../src/index.js";
import { actor, testSpec } from "./helpers.js";

/**
 * no-loss on hand-written histories of a leader failover: an acknowledged
 * record is lost only when a newer leader writes over its offset, never
 * because a deposed leader that has not yet heard of its successor appends
 * there at its old epoch (as it does once a partition that cut it off heals
 * and the produce requests TCP held back reach it).
 */
const obs = (t: number, who: string, o: Record<string, JsonValue>): HistoryEvent => ({ t, ev: "obs", actor: who, o: o as Observation });
const spec = testSpec({ durationUs: 600_000_000, actors: [actor("broker-0", "broker"), actor("broker-2", "broker")] });
const check = (events: HistoryEvent[]) => (CHECKERS.get("no-loss") as NonNullable<ReturnType<typeof CHECKERS.get>>).check(events, spec);

const append = (t: number, broker: string, base: number, last: number, leaderEpoch: number) =>
  obs(t, broker, { type: "broker.append", topic: "orders", partition: 5, baseOffset: base, lastOffset: last, leaderEpoch });
const ack = (t: number, base: number, last: number, leader: string | null) =>
  obs(t, "producer-1", {
    type: "producer.ack",
    topic: "orders",
    partition: 5,
    baseOffset: base,
    lastOffset: last,
    count: last - base + 1,
    acks: "all",
    errorCode: 0,
    latencyMs: 1,
    producerId: 1,
    producerEpoch: 0,
    baseSequence: base,
    transactionalId: null,
    leader,
  });
const consumed = (t: number, first: number, last: number) =>
  obs(t, "member-1", {
    type: "member.records",
    memberId: "m",
    ranges: [{ topic: "orders", partition: 5, firstOffset: first, lastOffset: last, count: 1 }],
  });

describe("no-loss across a leader failover", () => {
  it("a deposed leader's append at an older epoch overwrites nothing (chaos-data seed 1, orders-5 offset 39)", () => {
    const events = [
      append(29_963_562, "broker-2", 38, 38, 0),
      append(43_052_955, "broker-0", 39, 39, 1), // broker-0 leads at epoch 1 while broker-2 is cut off
      ack(43_100_000, 39, 39, "broker-0"),
      append(59_994_867, "broker-2", 39, 40, 0), // broker-2, not yet told, appends held-back produces at epoch 0
      consumed(70_000_000, 38, 39),
    ];
    expect(check(events)).toEqual({ ok: true, violations: [] });
  });

  it("a newer leader's append over an acknowledged offset is a loss", () => {
    const events = [
      append(10_000_000, "broker-2", 39, 39, 0),
      ack(10_100_000, 39, 39, "broker-2"), // acks=1 on the old leader
      append(20_000_000, "broker-0", 39, 39, 1), // the new leader never had it
      consumed(70_000_000, 39, 39),
    ];
    const result = check(events);
    expect(result.ok).toBe(false);
    expect(result.violations[0]?.message).toBe("acknowledged record orders-5 offset 39 was overwritten by another leader: lost");
  });

  it("judges an acknowledgement by the append of the broker that acknowledged it, not by the latest append at that offset", () => {
    const events = [
      append(10_000_000, "broker-0", 39, 39, 1),
      append(10_050_000, "broker-2", 39, 39, 0), // the deposed leader appends in between
      ack(10_100_000, 39, 39, "broker-0"),
      append(20_000_000, "broker-2", 39, 39, 1), // broker-2 as a follower copies epoch 1's record: the same append
      consumed(70_000_000, 39, 39),
    ];
    expect(check(events).ok).toBe(true);
    // Without the acknowledging broker, the latest append at that offset (epoch 0) is taken: then epoch 1 overwrote it.
    const anonymous = events.map((e) => (e.ev === "obs" && e.o.type === "producer.ack" ? { ...e, o: { ...e.o, leader: null } } : e));
    expect(check(anonymous).ok).toBe(false);
  });
});

describe("no-loss on records never consumed", () => {
  it("lists unseen offsets in order and points at the acknowledgement of the offset acknowledged first", () => {
    const events = [
      append(1_000_000, "broker-0", 0, 9, 0),
      ack(2_000_000, 7, 9, "broker-0"), // a later batch's acknowledgement arrives first (another producer's connection)
      ack(2_500_000, 0, 2, "broker-0"),
      ack(3_000_000, 0, 2, "broker-0"), // the same offsets acknowledged again: their place in the order stays
      consumed(70_000_000, 1, 1),
    ];
    const result = check(events);
    expect(result.ok).toBe(false);
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]?.message).toBe("orders-5: acknowledged records never consumed: offsets 0, 2, 7, 8, 9");
    expect(result.violations[0]?.events).toEqual([1]);
  });

  it("names the first fetch that brought unseen records to a real client that did not own the partition (kcsim serve)", () => {
    const dropped = (t: number, who: string, first: number, last: number) =>
      obs(t, who, {
        type: "member.records-dropped",
        memberId: "m",
        ranges: [{ topic: "orders", partition: 5, firstOffset: first, lastOffset: last, count: last - first + 1 }],
      });
    const history = (...more: HistoryEvent[]) => [
      append(1_000_000, "broker-0", 0, 9, 0),
      ack(2_000_000, 0, 9, "broker-0"),
      consumed(3_000_000, 0, 5),
      dropped(4_000_000, "client:consumer-2", 0, 5), // brought only offsets an owner consumed: not named
      ...more,
      consumed(9_000_000, 9, 9),
    ];
    expect(check(history()).violations[0]?.message).toBe("orders-5: acknowledged records never consumed: offsets 6, 7, 8");
    const result = check(history(dropped(5_000_000, "client:consumer-2", 6, 7), dropped(6_000_000, "client:consumer-1", 6, 8)));
    expect(result.violations.map((v) => v.message)).toEqual([
      "orders-5: acknowledged records never consumed: offsets 6, 7, 8; client:consumer-2 fetched offsets 6, 7 at 5.000 s without owning orders-5: " +
        "a client drops such records, and if it handed them to its application anyway, the wire cannot show it",
    ]);
  });
});

describe("no-loss when no consumer is left to drain a partition", () => {
  // Two members of group g read orders (8 partitions, orders-5 among them).
  const member = (id: string) =>
    actor(id, "consumer", {
      consumer: { "group.id": "g" },
      subscription: ["orders"],
      topics: [{ name: "orders", id: "orders-id", partitions: 8 }],
      bootstrap: ["coordinator-0"],
    });
  const groupSpec = testSpec({ durationUs: 600_000_000, actors: [actor("broker-0", "broker"), member("member-1"), member("member-2")] });
  const judge = (events: HistoryEvent[]) =>
    (CHECKERS.get("no-loss") as NonNullable<ReturnType<typeof CHECKERS.get>>).check(events, groupSpec);
  const life = (t: number, who: string, what: string, detail: string | null = null): HistoryEvent => ({
    t,
    ev: "life",
    actor: who,
    what,
    detail,
  });
  const fatal = (t: number, who: string) =>
    obs(t, who, { type: "member.fatal", groupId: "g", memberId: `${who}-id`, error: "UNRELEASED_INSTANCE_ID" });
  // Seed 7521 of the data swarm: both static members restart before their old selves' sessions run out, and
  // UNRELEASED_INSTANCE_ID stops each for good; orders-5's records from offset 5 on are never handed out.
  const history = (...end: HistoryEvent[]) => [
    life(0, "member-1", "start"),
    life(0, "member-2", "start"),
    append(1_000_000, "broker-0", 0, 9, 0),
    ack(2_000_000, 0, 9, "broker-0"),
    consumed(3_000_000, 0, 4),
    ...end,
  ];
  const stopped = [
    life(10_000_000, "member-1", "crash"),
    life(11_000_000, "member-1", "restart"),
    fatal(11_100_000, "member-1"),
    life(12_000_000, "member-2", "crash"),
    life(13_000_000, "member-2", "restart"),
    fatal(13_100_000, "member-2"),
  ];
  const reason =
    "group g has no live member but consumers stopped by a fatal error (member-1: UNRELEASED_INSTANCE_ID, member-2: UNRELEASED_INSTANCE_ID): records of orders-5 past the last one consumed: no consumer is left to drain them";

  it("does not judge the records past the last one consumed, and says why", () => {
    expect(judge(history(...stopped))).toEqual({ ok: true, violations: [], notJudged: reason });
    // Down or told to close counts as stopped too.
    expect(judge(history(life(10_000_000, "member-1", "crash"), life(11_000_000, "member-2", "command", "close"))).notJudged).toBe(
      "group g has no member left running (each is down or was told to close): records of orders-5 past the last one consumed: no consumer is left to drain them",
    );
  });

  it("still judges them while one member can consume, and a record passed over below one consumed is still a loss", () => {
    // member-2 restarted cleanly: it could still have consumed them.
    expect(judge(history(...stopped.slice(0, 4), life(13_000_000, "member-2", "restart"))).violations.map((v) => v.message)).toEqual([
      "orders-5: acknowledged records never consumed: offsets 5, 6, 7, 8, 9",
    ]);
    // The consumers got 0..2 and 6..7 before they stopped: 3 to 5 were passed over (a loss); 8 and 9 were never reached.
    const gap = history(...stopped).map((e) => (e.ev === "obs" && e.o.type === "member.records" ? consumed(3_000_000, 0, 2) : e));
    const result = judge([...gap.slice(0, 5), consumed(4_000_000, 6, 7), ...gap.slice(5)]);
    expect(result.violations.map((v) => v.message)).toEqual(["orders-5: acknowledged records never consumed: offsets 3, 4, 5"]);
    // A restart afterwards starts the member afresh: it can consume again.
    expect(judge(history(...stopped, life(20_000_000, "member-1", "restart"))).ok).toBe(false);
  });
});
