import { ms, type TopicPartition, tpKey } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ConsumedRecord } from "../src/index.js";
import {
  FakeCluster as Cluster,
  type FakeCluster,
  FetcherWorld,
  forgottenPartitions,
  newFetcher,
  requestedPartitions,
  TOPIC,
} from "./fetcher-fixtures.js";

/**
 * The Fetcher against a cluster under random operations: producing (records
 * and transaction markers), polling, pausing, seeking, revoking, leader
 * moves, evicted sessions and lost responses. After every step:
 * - a fetch request's session holds only assigned, unpaused partitions with
 *   nothing buffered, each at its current position;
 * - at most one fetch per broker is unanswered;
 * - poll hands out, per partition, exactly the next user records of the log
 *   from the position, and only for assigned, unpaused partitions.
 * After the faults heal, every partition is consumed to the end of its log.
 */

const PARTITIONS: readonly TopicPartition[] = [0, 1, 2].map((partition) => ({ topic: TOPIC, partition }));
const partitionArb = fc.constantFrom(...PARTITIONS);

type Op =
  | { readonly kind: "produce"; readonly tp: TopicPartition; readonly count: number }
  | { readonly kind: "marker" | "pause" | "resume" | "revoke" | "reassign"; readonly tp: TopicPartition }
  | { readonly kind: "seek"; readonly tp: TopicPartition; readonly fraction: number }
  | { readonly kind: "poll"; readonly max: number }
  | { readonly kind: "run"; readonly millis: number }
  | { readonly kind: "move-leader"; readonly tp: TopicPartition }
  | { readonly kind: "evict"; readonly broker: number }
  | { readonly kind: "lose"; readonly millis: number }
  /** Waits until records of `tp` are on their way to the consumer, then pauses, seeks or revokes it. */
  | { readonly kind: "race"; readonly tp: TopicPartition; readonly action: "pause" | "seek" | "revoke" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("produce" as const), tp: partitionArb, count: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("marker" as const), tp: partitionArb }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("poll" as const), max: fc.integer({ min: 1, max: 8 }) }) },
  {
    weight: 6,
    // Short steps land between a request and its answer; long ones span long polls and timeouts.
    arbitrary: fc.record({
      kind: fc.constant("run" as const),
      millis: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 700 })),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom("pause" as const, "resume" as const), tp: partitionArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("revoke" as const, "reassign" as const), tp: partitionArb }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("seek" as const), tp: partitionArb, fraction: fc.double({ min: 0, max: 1.2, noNaN: true }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("move-leader" as const), tp: partitionArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("evict" as const), broker: fc.constantFrom(1, 2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("lose" as const), millis: fc.integer({ min: 1, max: 3_000 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("race" as const),
      tp: partitionArb,
      action: fc.constantFrom("pause" as const, "seek" as const, "revoke" as const),
    }),
  },
);

/** The offsets of user (non-control) records in a partition's log, ascending. */
function userOffsets(cluster: FakeCluster, tp: TopicPartition): number[] {
  return cluster.log(tp).batches.flatMap((b) => (b.isControl ? [] : b.records.map((r) => b.baseOffset + r.offsetDelta)));
}

class Checked {
  readonly world = new FetcherWorld(
    new Cluster(3, (p) => (p % 2) + 1),
    newFetcher({ "request.timeout.ms": 2_000, "auto.offset.reset": "earliest", "max.poll.records": 5 }, ["broker-1", "broker-2"]),
    // A long wire, so operations often land while a request or its answer is on it.
    ms(20),
  );
  readonly assigned = new Set<string>(PARTITIONS.map((tp) => tpKey(tp.topic, tp.partition)));
  readonly paused = new Set<string>();
  /** The client's sessions as its requests describe them: broker -> partition -> fetch offset. */
  readonly sessions = new Map<string, Map<string, number>>();
  loseUntil = -1;
  /** Where each partition's position must be: set by seeks, polls and observed resets. */
  readonly positions = new Map<string, number | null>(PARTITIONS.map((tp) => [tpKey(tp.topic, tp.partition), 0]));
  #resetsSeen = 0;

  constructor() {
    this.world.onSend = ({ to, message }) => {
      if (message.type !== "FetchRequest") return;
      const full = message.sessionEpoch === 0 || message.sessionEpoch === -1;
      const session = full ? new Map<string, number>() : (this.sessions.get(to) ?? new Map<string, number>());
      for (const key of forgottenPartitions(message)) session.delete(key);
      for (const { key, offset } of requestedPartitions(message)) session.set(key, offset);
      this.sessions.set(to, session);
      const buffered = new Set(this.world.fetcher.bufferedPartitions().map((tp) => tpKey(tp.topic, tp.partition)));
      for (const [key, offset] of session) {
        expect(this.assigned.has(key), `fetching unassigned ${key}`).toBe(true);
        expect(this.paused.has(key), `fetching paused ${key}`).toBe(false);
        expect(buffered.has(key), `fetching buffered ${key}`).toBe(false);
        const tp = PARTITIONS.find((p) => tpKey(p.topic, p.partition) === key)!;
        expect(offset, `fetch offset of ${key}`).toBe(this.world.fetcher.position(tp));
      }
    };
    this.world.intercept = (_from, message) => (message.type === "FetchResponse" && this.world.ctx.now() < this.loseUntil ? null : message);
    this.world.act((f, ctx) => {
      f.assign(PARTITIONS, ctx);
      for (const tp of PARTITIONS) f.seek(tp, 0, ctx);
    });
  }

  apply(op: Op): void {
    const { world } = this;
    const key = "tp" in op ? tpKey(op.tp.topic, op.tp.partition) : "";
    switch (op.kind) {
      case "produce":
        world.cluster.produce(op.tp, op.count);
        break;
      case "marker":
        world.cluster.produceControl(op.tp);
        break;
      case "poll":
        this.poll(op.max);
        break;
      case "run":
        world.run(ms(op.millis));
        break;
      case "pause":
      case "resume":
        if (!this.assigned.has(key)) break;
        if (op.kind === "pause") this.paused.add(key);
        else this.paused.delete(key);
        world.act((f, ctx) => f.setFetchable([op.tp], op.kind === "resume", ctx));
        break;
      case "revoke":
      case "reassign": {
        if (op.kind === "revoke") this.assigned.delete(key);
        else if (!this.assigned.has(key)) {
          this.assigned.add(key);
          this.paused.delete(key);
        } else break;
        const partitions = PARTITIONS.filter((tp) => this.assigned.has(tpKey(tp.topic, tp.partition)));
        world.act((f, ctx) => {
          f.assign(partitions, ctx);
          if (op.kind === "reassign") f.seek(op.tp, 0, ctx);
        });
        this.positions.set(key, op.kind === "reassign" ? 0 : null);
        break;
      }
      case "seek": {
        if (!this.assigned.has(key)) break;
        const offset = Math.floor(op.fraction * world.cluster.endOffset(op.tp));
        world.act((f, ctx) => f.seek(op.tp, offset, ctx));
        this.positions.set(key, offset);
        break;
      }
      case "move-leader":
        world.cluster.moveLeader(op.tp, (world.cluster.log(op.tp).leader % 2) + 1);
        break;
      case "evict":
        for (const session of [...world.cluster.sessions.get(op.broker)!.cache.shards.flatMap((s) => [...s.sessions()])]) {
          world.cluster.sessions.get(op.broker)!.cache.remove(session.id);
        }
        break;
      case "lose":
        this.loseUntil = world.ctx.now() + ms(op.millis);
        break;
      case "race": {
        if (!this.assigned.has(key) || this.paused.has(key)) break;
        world.cluster.produce(op.tp, 2);
        const carrying = () =>
          world
            .inFlight()
            .some(
              ({ message }) =>
                message.type === "FetchResponse" &&
                message.responses.some((t) => t.partitions.some((p) => p.partitionIndex === op.tp.partition && p.records.length > 0)),
            );
        for (let waited = 0; waited < 1_500 && !carrying(); waited++) world.run(ms(1));
        if (op.action === "pause") this.apply({ kind: "pause", tp: op.tp });
        else if (op.action === "revoke") this.apply({ kind: "revoke", tp: op.tp });
        else {
          world.act((f, ctx) => f.seek(op.tp, 0, ctx));
          this.positions.set(key, 0);
        }
        break;
      }
    }
    this.checkInFlight();
    this.checkPositions();
  }

  /**
   * Positions move only by seeks, polls and resets, or past offsets that
   * hold no user record (transaction markers consumed on arrival).
   */
  checkPositions(): void {
    const { world } = this;
    const resets = world.ctx.observed("fetch.reset");
    for (const reset of resets.slice(this.#resetsSeen)) this.positions.set(tpKey(TOPIC, reset.partition as number), reset.offset as number);
    this.#resetsSeen = resets.length;
    for (const tp of PARTITIONS) {
      const key = tpKey(tp.topic, tp.partition);
      if (!this.assigned.has(key)) continue;
      const expected = this.positions.get(key) ?? null;
      const actual = world.fetcher.position(tp);
      if (actual === null || expected === null || actual === expected) {
        // A reset in progress clears the position; nothing else may.
        if (actual === null && expected !== null)
          expect(world.requestsOfType("ListOffsetsRequest").length, `${key} lost its position`).toBeGreaterThan(0);
        continue;
      }
      expect(actual, `${key} moved back`).toBeGreaterThan(expected);
      const skipped = userOffsets(world.cluster, tp).filter((o) => o >= expected && o < actual);
      expect(skipped, `${key} skipped records moving from ${expected} to ${actual}`).toEqual([]);
      this.positions.set(key, actual);
    }
  }

  poll(max: number): readonly ConsumedRecord[] {
    const { world } = this;
    this.checkPositions();
    const before = new Map(PARTITIONS.map((tp) => [tpKey(tp.topic, tp.partition), world.fetcher.position(tp)]));
    const records = world.act((f, ctx) => f.poll(max, ctx).records());
    expect(records.length).toBeLessThanOrEqual(max);
    for (const tp of PARTITIONS) {
      const key = tpKey(tp.topic, tp.partition);
      const mine = records.filter((r) => r.partition === tp.partition).map((r) => r.offset);
      if (mine.length === 0) continue;
      expect(this.assigned.has(key) && !this.paused.has(key), `records from ${key}`).toBe(true);
      const from = before.get(key);
      expect(from).not.toBeNull();
      const expected = userOffsets(world.cluster, tp).filter((o) => o >= (from as number));
      expect(mine, `records of ${key} from ${from}`).toEqual(expected.slice(0, mine.length));
      const position = world.fetcher.position(tp) as number;
      const last = mine[mine.length - 1] as number;
      expect(position).toBeGreaterThan(last);
      expect(position).toBeLessThanOrEqual(expected[mine.length] ?? world.cluster.endOffset(tp));
      this.positions.set(key, position);
    }
    return records;
  }

  /** Each broker has at most one fetch without its fetch.round (answer or failure). */
  checkInFlight(): void {
    for (const broker of ["broker-1", "broker-2"]) {
      const sent = this.world.fetchRequests().filter((r) => r.to === broker).length;
      const rounds = this.world.ctx.observed("fetch.round").filter((o) => o.broker === broker).length;
      expect(sent - rounds).toBeGreaterThanOrEqual(0);
      expect(sent - rounds).toBeLessThanOrEqual(1);
    }
  }

  /** Faults heal, everything is resumed and polled: every assigned partition reaches the end of its log. */
  heal(): void {
    const { world } = this;
    this.loseUntil = -1;
    const assigned = PARTITIONS.filter((tp) => this.assigned.has(tpKey(tp.topic, tp.partition)));
    this.paused.clear();
    world.act((f, ctx) => f.setFetchable(assigned, true, ctx));
    for (let round = 0; round < 40; round++) {
      world.run(ms(700));
      while (this.poll(5).length > 0);
      if (assigned.every((tp) => world.fetcher.position(tp) === world.cluster.endOffset(tp))) break;
    }
    for (const tp of assigned) expect(world.fetcher.position(tp), tpKey(tp.topic, tp.partition)).toBe(world.cluster.endOffset(tp));
    expect(world.ctx.warnings).toEqual([]);
  }
}

describe("Fetcher under random operations", () => {
  it("keeps its fetch, poll and position invariants, and consumes everything once faults heal", () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 5, maxLength: 40 }), (ops) => {
        const checked = new Checked();
        for (const op of ops) checked.apply(op);
        checked.heal();
      }),
      { numRuns: 100, seed: 20_250_611 },
    );
  });
});
