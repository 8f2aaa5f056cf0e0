import type { JsonValue, Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { CHECKERS, type HistoryEvent, type SimulationSpec } from "../src/index.js";
import { actor, testSpec } from "./helpers.js";

/** The exactly-once and sink checkers on hand-written histories: each can fail, and says why. */

const obs = (t: number, who: string, o: Record<string, JsonValue>): HistoryEvent => ({ t, ev: "obs", actor: who, o: o as Observation });
const life = (t: number, who: string, what: string): HistoryEvent => ({ t, ev: "life", actor: who, what, detail: null });

const topics = [
  { name: "in", id: "in-id", partitions: 1 },
  { name: "out", id: "out-id", partitions: 1 },
];
const processor = (id: string) =>
  actor(id, "consumer", {
    consumer: { "group.id": "pipe" },
    subscription: ["in"],
    topics,
    bootstrap: ["coordinator-0"],
    app: { mode: "consume-process-produce", output: { topic: "out", transactional: true } },
  });
const verifier = actor("verifier-1", "consumer", {
  consumer: { "group.id": "check" },
  subscription: ["out"],
  topics,
  bootstrap: ["coordinator-0"],
  app: { sink: "upsert" },
});
const spec: SimulationSpec = testSpec({ durationUs: 200_000_000, actors: [processor("a"), processor("b"), verifier] });

const check = (name: string, events: HistoryEvent[]) => {
  const checker = CHECKERS.get(name);
  if (checker === undefined) throw new Error(name);
  return checker.check(events, spec);
};

const ack = (t: number, topic: string, base: number, last: number, transactionalId: string | null = null, producerId = 1) =>
  obs(t, transactionalId === null ? "producer-1" : "tx", {
    type: "producer.ack",
    topic,
    partition: 0,
    baseOffset: base,
    lastOffset: last,
    count: last - base + 1,
    acks: "all",
    errorCode: 0,
    latencyMs: 1,
    producerId,
    producerEpoch: 0,
    baseSequence: base,
    transactionalId,
  });
const marker = (t: number, topic: string, offset: number, committed: boolean, producerId = 1) =>
  obs(t, "broker-0", { type: "broker.txn-marker", topic, partition: 0, producerId, producerEpoch: 0, committed, offset });
const owned = (t: number, who: string, partitions: number[], topic = "in") =>
  obs(t, who, {
    type: "member.owned",
    groupId: "pipe",
    memberId: `${who}-id`,
    memberEpoch: 1,
    owned: { [topic]: partitions },
    cause: "assigned",
  });
const records = (t: number, who: string, first: number, last: number, topic = "in") =>
  obs(t, who, {
    type: "member.records",
    memberId: `${who}-id`,
    ranges: [{ topic, partition: 0, firstOffset: first, lastOffset: last, count: last - first + 1 }],
  });
/** The verifier read output offset `at`, the result of in-0@`input` made by `writer`. */
const read = (t: number, at: number, input: number, writer = "a") =>
  obs(t, "verifier-1", {
    type: "sink.write",
    groupId: "check",
    memberId: "v-id",
    mode: "upsert",
    row: `out-0@${at}`,
    key: null,
    value: `in:in-0@${input};by:${writer}`,
    inputTopic: "out",
    inputPartition: 0,
    inputOffset: at,
  });
const sinkWrite = (t: number, who: string, input: number, mode: "append" | "upsert") =>
  obs(t, who, {
    type: "sink.write",
    groupId: "pipe",
    memberId: `${who}-id`,
    mode,
    row: mode === "upsert" ? `in-0@${input}` : null,
    key: null,
    value: `in-0@${input}`,
    inputTopic: "in",
    inputPartition: 0,
    inputOffset: input,
  });

describe("exactly-once-output", () => {
  it("passes when each committed input record has one result, whoever wrote it and however often it was read", () => {
    const events = [ack(1, "in", 0, 2), read(10, 0, 0), read(11, 1, 1, "b"), read(12, 2, 2), read(13, 2, 2)];
    expect(check("exactly-once-output", events).ok).toBe(true);
  });

  it("reports a duplicate result with its cause, and a committed input record without a result", () => {
    const events = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      ack(1, "in", 0, 2),
      owned(2, "a", [0]),
      records(3, "a", 0, 1),
      life(4, "a", "crash"),
      owned(5, "b", [0]),
      records(6, "b", 0, 1),
      read(10, 0, 0),
      read(11, 1, 0, "b"),
      read(12, 2, 1, "b"),
    ];
    const result = check("exactly-once-output", events);
    expect(result.ok).toBe(false);
    const messages = result.violations.map((v) => v.message);
    expect(messages).toContain("pipe: 1 of 3 committed input records have more than one result in out (crash before commit x1)");
    expect(messages).toContain("pipe: in-0@0 has 2 results in out (out-0@0 by a, out-0@1 by b); cause: crash before commit");
    expect(messages).toContain("pipe: committed input in-0 without a result in out: offsets 2");
    expect(check("output-duplicates-attributed", events).ok).toBe(true);
  });

  it("a duplicate no re-delivery explains fails output-duplicates-attributed", () => {
    const events = [ack(1, "in", 0, 0), owned(2, "a", [0]), records(3, "a", 0, 0), read(10, 0, 0), read(11, 1, 0)];
    const result = check("output-duplicates-attributed", events);
    expect(result.violations.map((v) => v.message)).toEqual(["pipe: in-0@0 has 2 results in out and no re-delivery explains them"]);
  });

  it("a fenced zombie that processes records before their new owner does is the cause of their duplicates", () => {
    // a is fenced (session timeout) while paused; b takes the partition from the last commit (none) and reads 0-1.
    // a resumes and processes records 2-3 it fetched before it learns it is out; b then processes 2-3 as well.
    // Records 2 and 3 were first processed by the zombie: no re-delivery of b explains their second results.
    const removed = obs(4, "coordinator-0", {
      type: "gc.member-removed",
      groupId: "pipe",
      memberId: "a-id",
      instanceId: null,
      memberEpoch: 1,
      reason: "session-timeout",
    });
    const events = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      ack(1, "in", 0, 3),
      owned(2, "a", [0]),
      records(3, "a", 0, 1),
      removed,
      owned(5, "b", [0]),
      records(6, "b", 0, 1),
      records(7, "a", 2, 3),
      records(8, "b", 2, 3),
      read(10, 0, 0),
      read(11, 1, 1),
      read(12, 2, 0, "b"),
      read(13, 3, 1, "b"),
      read(14, 4, 2),
      read(15, 5, 3),
      read(16, 6, 2, "b"),
      read(17, 7, 3, "b"),
    ];
    expect(check("output-duplicates-attributed", events).ok).toBe(true);
    expect(check("exactly-once-output", events).violations.map((v) => v.message)).toContain(
      "pipe: 4 of 4 committed input records have more than one result in out (fenced member (session-timeout) x2, zombie x2)",
    );
    // A zombie's one processing of a record does not explain two results of it: that is a record produced twice.
    const producedTwice = [...events.slice(0, 9), ...events.slice(10, 16), read(16, 6, 2), read(17, 7, 3)];
    expect(check("output-duplicates-attributed", producedTwice).violations.map((v) => v.message)).toEqual([
      "pipe: in-0@2 has 2 results in out and no re-delivery explains them",
      "pipe: in-0@3 has 2 results in out and no re-delivery explains them",
    ]);
  });

  it("judges transactional input by its markers: aborted records need no result and must have none", () => {
    const events = [
      ack(1, "in", 0, 1, "tx-1"),
      marker(2, "in", 2, false),
      ack(3, "in", 3, 3, "tx-1"),
      marker(4, "in", 4, true),
      read(10, 0, 3),
      read(11, 1, 0),
    ];
    const messages = check("exactly-once-output", events).violations.map((v) => v.message);
    expect(messages).toEqual(["pipe: out-0@1 is the result of in-0@0, which is in an aborted or open transaction"]);
  });

  it("fails without any reader of the output: there is no evidence", () => {
    const messages = check("exactly-once-output", [ack(1, "in", 0, 0)]).violations.map((v) => v.message);
    expect(messages).toEqual(["pipe: nothing of out was read: add a group reading it with isolation.level=read_committed and a sink"]);
  });
});

describe("sink checkers", () => {
  const delivered = [
    owned(1, "a", [0]),
    records(2, "a", 0, 1),
    life(5, "a", "crash"),
    life(5, "b", "start"),
    owned(6, "b", [0]),
    records(7, "b", 0, 1),
  ];

  it("an append sink written twice for a re-delivered record holds duplicate rows, each with its cause", () => {
    const events = [
      life(0, "a", "start"),
      ...delivered.slice(0, 2),
      sinkWrite(3, "a", 0, "append"),
      ...delivered.slice(2),
      sinkWrite(8, "b", 0, "append"),
      sinkWrite(9, "b", 1, "append"),
    ];
    const result = check("sink-no-duplicates", events);
    expect(result.violations.map((v) => v.message)).toEqual([
      "pipe: 1 input records have more than one row in the sink (crash before commit x1)",
      "pipe: append sink holds 2 rows of in-0@0 (written by a, b); cause: crash before commit",
    ]);
    expect(check("sink-duplicates-attributed", events).ok).toBe(true);
  });

  it("an upsert sink keeps one row per input record", () => {
    const events = [
      ...delivered.slice(0, 2),
      sinkWrite(3, "a", 0, "upsert"),
      ...delivered.slice(2),
      sinkWrite(8, "b", 0, "upsert"),
      sinkWrite(9, "b", 1, "upsert"),
    ];
    expect(check("sink-no-duplicates", events).ok).toBe(true);
  });

  it("a row written twice without a second delivery is unexplained", () => {
    const events = [...delivered.slice(0, 2), sinkWrite(3, "a", 0, "append"), sinkWrite(4, "a", 0, "append")];
    expect(check("sink-duplicates-attributed", events).violations.map((v) => v.message)).toEqual([
      "pipe: append sink holds 2 rows of in-0@0 and no re-delivery explains them",
    ]);
  });
});

describe("consumption with transactions", () => {
  const batchRewound = (t: number, who: string, first: number, last: number) =>
    obs(t, who, {
      type: "member.batch",
      groupId: "pipe",
      memberId: `${who}-id`,
      memberEpoch: 1,
      transactionalId: `pipe-${who}`,
      outcome: "aborted",
      reason: "CommitFailedException: ILLEGAL_GENERATION",
      records: last - first + 1,
      offsets: { in: { "0": [first, last] } },
      rewoundTo: { in: { "0": first } },
    });

  it("a rewind to the start of a rolled-back batch is explained; one without a rollback is not", () => {
    const rewound = [
      life(0, "a", "start"),
      ack(1, "in", 0, 9),
      owned(2, "a", [0]),
      records(3, "a", 0, 4),
      batchRewound(4, "a", 0, 4),
      records(5, "a", 0, 4),
      records(6, "a", 5, 9),
    ];
    expect(check("contiguous-offsets-transactional", rewound).ok).toBe(true);
    expect(check("duplicates-attributed-transactional", rewound).ok).toBe(true);
    expect(check("contiguous-offsets", rewound).ok).toBe(false);
    const bare = rewound.filter((e) => e.ev !== "obs" || e.o.type !== "member.batch");
    expect(check("contiguous-offsets-transactional", bare).violations.map((v) => v.message)).toEqual([
      "a in-0: rewind from offset 5 to 0 with no reset or rollback to explain it",
    ]);
    expect(check("duplicates-attributed-transactional", bare).ok).toBe(false);
  });

  it("skipping markers and aborted records is fine; skipping a committed record is not", () => {
    const base = [ack(1, "in", 0, 1, "tx-1"), marker(2, "in", 2, false), ack(3, "in", 3, 3), owned(4, "a", [0])];
    expect(check("contiguous-offsets-transactional", [...base, records(5, "a", 3, 3)]).ok).toBe(true);
    const skipped = [ack(1, "in", 0, 0), ack(2, "in", 1, 1), owned(4, "a", [0]), records(5, "a", 0, 0), records(6, "a", 2, 2)];
    expect(check("contiguous-offsets-transactional", skipped).violations.map((v) => v.message)).toEqual([
      "a in-0: skip from offset 1 to 2 over committed record 1",
    ]);
  });

  it("a new owner's catch-up goes on past the markers it skips (chaos-eos, drawn seed 971)", () => {
    // b takes the partition over after a's crash and re-reads from the start, the committed offset (a never
    // committed): 0..1, then 3..4 past the marker at 2. Both ranges are the rebalance's catch-up.
    const events = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      ack(1, "in", 0, 1, "tx-1"),
      marker(2, "in", 2, true),
      ack(3, "in", 3, 4, "tx-1"),
      marker(4, "in", 5, true),
      owned(5, "a", [0]),
      records(6, "a", 0, 1),
      records(7, "a", 3, 4),
      life(8, "a", "crash"),
      owned(9, "b", [0]),
      records(10, "b", 0, 1),
      records(11, "b", 3, 4),
    ];
    expect(check("contiguous-offsets-transactional", events).ok).toBe(true);
    expect(check("duplicates-attributed-transactional", events).ok).toBe(true);
    // Going back is still unexplained: b re-reads 0..1 after it had gone past it.
    const rewound = [...events, records(12, "b", 0, 1)];
    expect(check("duplicates-attributed-transactional", rewound).violations.map((v) => v.message)).toEqual([
      "b in-0: 2 records delivered again with no rebalance, failed commit or reset to explain it; a had been handed them, up to offset 4, at 0.000 s",
    ]);
  });

  it("duplicates-attributed names, and cites, whoever had been handed the records before", () => {
    // a and b both own in-0 (a coordinator's mistake): b reads 0..1, a reads 0..4 (its own start, a new tenure's
    // catch-up), then b goes on to 2..3, records a already had: nothing explains b's.
    const events = [
      life(0, "a", "start"),
      life(0, "b", "start"),
      ack(1, "in", 0, 4),
      owned(2, "a", [0]),
      owned(2, "b", [0]),
      records(3, "b", 0, 1),
      records(4, "a", 0, 4),
      records(5, "b", 2, 3),
    ];
    // One owner going back over its own records: it names itself.
    const back = [life(0, "b", "start"), ack(1, "in", 0, 4), owned(2, "b", [0]), records(3, "b", 0, 3), records(4, "b", 2, 3)];
    expect(check("duplicates-attributed", back).violations.map((v) => v.message)).toEqual([
      "b in-0: 2 records delivered again with no rebalance, failed commit or reset to explain it; b itself had been handed up to offset 3 at 0.000 s",
    ]);
    const violations = check("duplicates-attributed", events).violations;
    expect(violations.map((v) => [v.message, v.events])).toEqual([
      [
        "b in-0: 2 records delivered again with no rebalance, failed commit or reset to explain it; a had been handed them, up to offset 4, at 0.000 s",
        [6, 7],
      ],
    ]);
  });

  it("no-loss-read-committed leaves aborted records out", () => {
    const events = [
      life(0, "a", "start"),
      ack(1, "in", 0, 1, "tx-1"),
      marker(2, "in", 2, false),
      ack(3, "in", 3, 3),
      owned(4, "a", [0]),
      records(5, "a", 3, 3),
    ];
    expect(check("no-loss-read-committed", events).ok).toBe(true);
    expect(check("no-loss", events).ok).toBe(false);
    expect(check("no-loss-read-committed", events.slice(0, 5)).ok).toBe(false);
    // With its only consumer stopped for good, the records it never reached are not judged, and it says why.
    const stopped = [...events.slice(0, 5), life(6, "a", "crash")];
    expect(check("no-loss-read-committed", stopped)).toEqual({
      ok: true,
      violations: [],
      notJudged:
        "group pipe has no member left running (each is down or was told to close): records of in-0 past the last one consumed: no consumer is left to drain them",
    });
  });
});
