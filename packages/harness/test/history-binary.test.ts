import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { JsonValue } from "@kcsim/protocol";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { ByteReader } from "../src/history/byte-reader.js";
import { ByteWriter } from "../src/history/byte-writer.js";
import { History } from "../src/history/history.js";
import { HistoryDecoder, HistoryEncoder } from "../src/history/history-codec.js";
import type { HistoryEvent, HistoryHeader } from "../src/history/history-event.js";
import { DEFAULT_REGISTRY, InlineHost, LockstepHost, loadScenarioFile, toSimulationSpec } from "../src/index.js";

const header: HistoryHeader = { kcsim: "history", format: 8, seed: 1, scenario: "t", versions: { kcsim: "0", protocol: "2" } };

/** One event of every kind, optional fields present and absent, and observations with awkward values. */
function sampleEvents(): HistoryEvent[] {
  const proto = JSON.parse('{"__proto__": {"3": 17}, "orders": {"0": 5}}') as Record<string, JsonValue>;
  return [
    { t: 0, ev: "life", actor: "member-1", what: "start", detail: null },
    {
      t: 10,
      ev: "send",
      from: "member-1",
      to: "coordinator-0",
      type: "ConsumerGroupHeartbeatRequest",
      bytes: 94,
      fate: "deliver",
      at: [1010],
    },
    {
      t: 10,
      ev: "send",
      from: "member-2",
      to: "broker-0",
      type: "FetchRequest",
      bytes: 70_000,
      fate: "deliver",
      at: [900, 2_000_000],
      fault: "jitter",
      corrupt: "garbage",
      reordered: true,
      conn: -3,
      held: true,
    },
    { t: 11, ev: "send", from: "member-2", to: "broker-0", type: "FetchRequest", bytes: 1, fate: "drop", at: [] },
    {
      t: 12,
      ev: "obs",
      actor: "member-1",
      o: {
        type: "member.records",
        memberId: "yyOpE3EnTAmzvUwmlbfd4g",
        ranges: [
          { topic: "orders", partition: 3, firstOffset: 0, lastOffset: 2 ** 40, count: 223 },
          { topic: "Ünïcødé ✓ 😀", partition: 300, firstOffset: -5, lastOffset: 1.5, count: Number.NaN },
        ],
      },
    },
    {
      t: 12,
      ev: "obs",
      actor: "member-1",
      o: { type: "member.commit", offsets: proto, result: "NONE", nested: [[], {}, [null, true, false]] },
    },
    { t: 13, ev: "obs", actor: "x", o: { type: "custom", big: 2 ** 60, tiny: 1e-300, neg: -1, negBig: -(2 ** 50), long: "y".repeat(500) } },
    { t: 14, ev: "conn", actor: "member-1", peer: "broker-0", gen: 2, what: "break", connection: "", reason: "f", at: [20, 30] },
    { t: 14, ev: "conn", actor: "member-1", peer: "broker-0", gen: 3, what: "connect", connection: "member-1->broker-0", reason: null },
    {
      t: 15,
      ev: "error",
      actor: "a",
      during: "start",
      message: "ConfigError: x",
      stack: `Error\n${"    at f (file.js:1:1)\n".repeat(40)}`,
    },
    { t: 16, ev: "reject", actor: "a", from: "b", reason: "decode", detail: "truncated" },
    { t: 17, ev: "lost", actor: "a", from: "b", type: "Ping", why: "crashed" },
    { t: 5, ev: "life", actor: "member-1", what: "clock-step", detail: "-300000" },
  ];
}

const json = (events: Iterable<HistoryEvent>) => [...events].map((event) => JSON.stringify(event));

describe("the binary history", () => {
  it("reads back every kind of event as it was recorded, by iteration, forEach and index", () => {
    const events = sampleEvents();
    const history = new History(header);
    for (const event of events) history.record(event);
    expect(json(history.log)).toEqual(json(events));
    const seen: string[] = [];
    history.log.forEach((event, index) => {
      seen.push(`${index}:${JSON.stringify(event)}`);
    });
    expect(seen).toEqual(events.map((event, index) => `${index}:${JSON.stringify(event)}`));
    events.forEach((event, index) => {
      expect(JSON.stringify(history.log.at(index))).toBe(JSON.stringify(event));
    });
    expect(history.log.at(events.length)).toBeUndefined();
    expect(history.log.at(-1)).toBeUndefined();
    // A topic named __proto__ stays a key of the decoded object (not its prototype).
    const commit = history.log.at(5);
    expect(commit?.ev === "obs" && Object.keys(commit.o.offsets as Record<string, JsonValue>)).toEqual(["__proto__", "orders"]);
  });

  it("writes objects with thousands of keys in memory proportional to their keys, and reads them back", () => {
    // Each of these objects is a shape of its own, 5,000 keys long: a shape tree whose every node held the keys
    // from the root would keep 12.5 million slots per object (100 MB), more than this whole test may use.
    const history = new History(header);
    const before = process.memoryUsage().heapUsed;
    const objects: Record<string, number>[] = [];
    for (let i = 0; i < 8; i++) {
      const offsets: Record<string, number> = {};
      for (let partition = 0; partition < 5_000; partition++) offsets[`${i}:${partition}`] = partition;
      objects.push(offsets);
      history.record({ t: i, ev: "obs", actor: "a", o: { type: "wide", offsets } as never });
    }
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
    expect(history.log.toArray().map((event) => (event.ev === "obs" ? event.o.offsets : null))).toEqual(objects);
  });

  it("keeps object keys whose value is undefined out, as JSON does", () => {
    const history = new History(header);
    history.record({ t: 1, ev: "obs", actor: "a", o: { type: "x", gone: undefined, kept: 1 } as never });
    expect(JSON.stringify(history.log.at(0))).toBe('{"t":1,"ev":"obs","actor":"a","o":{"type":"x","kept":1}}');
  });

  it("round-trips arbitrary JSON observations (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(1_000_000), fc.jsonValue()), { maxLength: 30 }), (items) => {
        const events: HistoryEvent[] = items.map(([t, value]) => ({ t, ev: "obs", actor: `a${t % 3}`, o: { type: "v", value } as never }));
        const history = new History(header);
        for (const event of events) history.record(event);
        expect(json(history.log)).toEqual(json(events));
      }),
      { numRuns: 200 },
    );
  });

  it("spans many blocks and reads back the same from memory and from its spill file", () => {
    const events: HistoryEvent[] = [];
    for (let i = 0; i < 40_000; i++) {
      events.push(
        i % 3 === 0
          ? { t: i * 7, ev: "send", from: `m${i % 50}`, to: "c", type: "T", bytes: i, fate: "deliver", at: [i * 7 + 100] }
          : { t: i * 7, ev: "obs", actor: `m${i % 50}`, o: { type: "member.poll", memberId: `id-${i % 50}`, records: i % 500 } },
      );
    }
    const inMemory = new History(header);
    const spilled = new History(header, { memoryBudget: 100_000 });
    for (const event of events) {
      inMemory.record(event);
      spilled.record(event);
    }
    expect(inMemory.bytes).toBeGreaterThan(4 * 64 * 1024);
    expect(inMemory.finish()).toBe(spilled.finish());
    const expected = json(events);
    expect(json(spilled.log)).toEqual(expected);
    expect(json(inMemory.log)).toEqual(expected);
    for (const index of [0, 1, 9_999, 20_000, 33_333, 39_999]) {
      expect(JSON.stringify(spilled.log.at(index))).toBe(expected[index]);
      expect(JSON.stringify(inMemory.log.at(index))).toBe(expected[index]);
    }
    expect(spilled.log.toArray()).toHaveLength(40_000);
  });

  it("hashes the header line and the record stream: the same events give the same hash, any change another", () => {
    const events = sampleEvents();
    const hashOf = (list: HistoryEvent[], options = {}) => {
      const history = new History(header, options);
      for (const event of list) history.record(event);
      return history.finish();
    };
    const hash = hashOf(events);
    expect(hashOf(events, { keepEvents: false, onLine: () => {} })).toBe(hash);
    // SHA-256 of the header's JSON line and then the records, encoded one after another from one block.
    const writer = new ByteWriter();
    const encoder = new HistoryEncoder();
    for (const event of events) encoder.encode(event, writer);
    expect(
      createHash("sha256")
        .update(`${JSON.stringify(header)}\n`)
        .update(writer.take())
        .digest("hex"),
    ).toBe(hash);
    const changed = events.map((event) => (event.ev === "lost" ? { ...event, why: "paused" } : event));
    expect(hashOf(changed)).not.toBe(hash);
    expect(hashOf(events.slice(0, -1))).not.toBe(hash);
    const other = new History({ ...header, seed: 2 });
    for (const event of events) other.record(event);
    expect(other.finish()).not.toBe(hash);
  });

  it("holds events back in order until released, and hashes them as if recorded at once", () => {
    const events = sampleEvents();
    const direct = new History(header);
    for (const event of events) direct.record(event);
    const lines: string[] = [];
    const held = new History(header, { onLine: (line) => lines.push(line) });
    held.record(events[0] as HistoryEvent);
    held.hold();
    for (const event of events.slice(1, 4)) held.record(event);
    expect([held.length, lines.length]).toEqual([1, 2]); // held ones are not encoded (nor seen) yet
    held.release();
    expect(held.length).toBe(4);
    held.hold();
    for (const event of events.slice(4)) held.record(event);
    // finish() releases what is still held.
    expect(held.finish()).toBe(direct.finish());
    expect(json(held.log)).toEqual(json(events));
    expect(lines.slice(1)).toEqual(events.map((event) => JSON.stringify(event)));
  });

  it("writes JSON lines only for whoever asks, the header first", () => {
    const lines: string[] = [];
    const history = new History(header, { onLine: (line) => lines.push(line) });
    for (const event of sampleEvents()) history.record(event);
    expect(lines[0]).toBe(JSON.stringify(header));
    expect(lines.slice(1)).toEqual(json(sampleEvents()));
  });

  it("is compact: a poll observation takes a few bytes once its strings are known", () => {
    const writer = new ByteWriter();
    const encoder = new HistoryEncoder();
    const poll = (t: number): HistoryEvent => ({
      t,
      ev: "obs",
      actor: "member-7",
      o: { type: "member.poll", memberId: "yyOpE3EnTAmzvUwmlbfd4g", records: 12 },
    });
    encoder.encode(poll(1_000), writer);
    const first = writer.pos;
    encoder.encode(poll(2_000), writer);
    expect(writer.pos - first).toBeLessThanOrEqual(11);
    const decoder = new HistoryDecoder(encoder.tables);
    const reader = new ByteReader(writer.take());
    const a = decoder.decode(reader, 0);
    expect(decoder.decode(reader, a.t)).toEqual(poll(2_000));
  });

  it("writes a member.records or a member's mark of the usual shape as a record of its own, and any other as an observation, reading each back as recorded", () => {
    const range = (partition: number, firstOffset: number, lastOffset: number, count: number) => ({
      topic: "orders",
      partition,
      firstOffset,
      lastOffset,
      count,
    });
    const usual = {
      type: "member.records",
      memberId: "m-1",
      ranges: [range(0, 5, 9, 5), range(1, 2 ** 40, 2 ** 40 + 3, 2), range(7, 0, 0, 1)],
    };
    const variants: Record<string, unknown>[] = [
      { ...usual, extra: 1 },
      { memberId: "m-1", type: "member.records", ranges: usual.ranges },
      { type: "member.records", memberId: 7, ranges: usual.ranges },
      { type: "member.records", memberId: "m-1", ranges: [{ partition: 0, topic: "orders", firstOffset: 5, lastOffset: 9, count: 5 }] },
      { type: "member.records", memberId: "m-1", ranges: [{ ...range(0, 5, 9, 5), extra: true }] },
      { type: "member.records", memberId: "m-1", ranges: [{ topic: "orders", partition: 0, firstOffset: 5, lastOffset: 9 }] },
      { type: "member.records", memberId: "m-1", ranges: [{ ...range(0, 5, 9, 5), count: undefined }] },
      { type: "member.records", memberId: "m-1", ranges: [range(0, 9, 5, 5)] },
      { type: "member.records", memberId: "m-1", ranges: [range(-1, 5, 9, 5)] },
      { type: "member.records", memberId: "m-1", ranges: [range(0, 5, 9.5, 5)] },
      { type: "member.records", memberId: "m-1", ranges: [range(0, 5, 2 ** 53, 5)] },
      { type: "member.records", memberId: "m-1", ranges: [range(0, 5, 9, 5), null] },
      { type: "member.records", memberId: "m-1", ranges: { 0: range(0, 5, 9, 5) } },
      { type: "member.records", memberId: "m-1", ranges: [Object.assign(Object.create(null) as object, range(0, 5, 9, 5))] },
    ];
    const kindOf = (o: Record<string, unknown>) => {
      const writer = new ByteWriter();
      const encoder = new HistoryEncoder();
      const event = { t: 1, ev: "obs", actor: "member-1", o } as HistoryEvent;
      encoder.encode(event, writer);
      const bytes = writer.take();
      const decoded = new HistoryDecoder(encoder.tables).decode(new ByteReader(bytes), 0);
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(event));
      return bytes[0];
    };
    expect(kindOf(usual)).toBe(8);
    expect(kindOf({ ...usual, ranges: [] })).toBe(8);
    for (const variant of variants) expect(kindOf(variant)).toBe(2);
    // A type and a member id alone (member.poll-timer-reset, member.poll): a record of its own too.
    expect(kindOf({ type: "member.poll-timer-reset", memberId: "m-1" })).toBe(9);
    expect(kindOf({ type: "member.poll", memberId: "" })).toBe(9);
    expect(kindOf({ type: "member.records", memberId: "m-1" })).toBe(9);
    for (const variant of [
      { memberId: "m-1", type: "member.poll" },
      { type: "member.poll", memberId: "m-1", records: 3 },
      { type: "member.poll", memberId: 3 },
      { type: 3, memberId: "m-1" },
      { type: "member.poll", memberId: "m-1", gone: undefined },
      Object.assign(Object.create(null) as object, { type: "member.poll", memberId: "m-1" }),
    ])
      expect(kindOf(variant as Record<string, unknown>)).toBe(2);

    // A range's key inherited from Object.prototype is not its own: the usual record is not written while one is there.
    const proto = Object.prototype as Record<string, unknown>;
    proto.inherited = 1;
    try {
      expect(kindOf(usual)).toBe(2);
    } finally {
      delete proto.inherited;
    }

    // Once its strings are known, a range takes five bytes for small numbers: no shape and no tag per value.
    const writer = new ByteWriter();
    const encoder = new HistoryEncoder();
    const poll = (t: number): HistoryEvent => ({
      t,
      ev: "obs",
      actor: "member-1",
      o: { ...usual, ranges: [range(0, 5, 9, 5), range(1, 3, 3, 1)] },
    });
    encoder.encode(poll(1), writer);
    const first = writer.pos;
    encoder.encode(poll(2), writer);
    expect(writer.pos - first).toBe(1 + 1 + 1 + 1 + 1 + 2 * 5);
  });

  it("round-trips member.records observations of any shape (property)", () => {
    const whole = fc.oneof(
      fc.nat(300),
      fc.constantFrom(0, 2 ** 31, 2 ** 40, Number.MAX_SAFE_INTEGER),
      fc.integer({ min: -5, max: -1 }),
      fc.double(),
    );
    const rangeArb = fc.oneof(
      fc.record({
        topic: fc.string(),
        partition: fc.nat(100),
        firstOffset: fc.nat(1_000),
        lastOffset: fc.nat(1_000),
        count: fc.nat(1_000),
      }),
      fc.record({ topic: fc.oneof(fc.string(), fc.nat()), partition: whole, firstOffset: whole, lastOffset: whole, count: whole }),
      fc.dictionary(fc.constantFrom("topic", "partition", "firstOffset", "lastOffset", "count", "x"), whole),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.array(rangeArb, { maxLength: 6 })), { maxLength: 10 }), (polls) => {
        const events: HistoryEvent[] = polls.map(([memberId, ranges], i) => ({
          t: i,
          ev: "obs",
          actor: "member-1",
          o: { type: "member.records", memberId, ranges } as never,
        }));
        const history = new History(header);
        for (const event of events) history.record(event);
        expect(json(history.log)).toEqual(json(events));
      }),
      { numRuns: 300 },
    );
  });

  it("varints and strings survive their edges", () => {
    const writer = new ByteWriter(4);
    const numbers = [0, 1, 127, 128, 2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER];
    for (const n of numbers) writer.uint(n);
    const signed = numbers.filter((n) => n <= 2 ** 52);
    for (const n of signed) writer.int(-n);
    const strings = ["", "a", "x".repeat(127), "x".repeat(128), "é", "😀".repeat(100)];
    for (const s of strings) writer.string(s);
    const reader = new ByteReader(writer.take());
    expect(numbers.map(() => reader.uint())).toEqual(numbers);
    expect(signed.map(() => reader.int())).toEqual(signed.map((n) => -n || 0));
    expect(strings.map(() => reader.string())).toEqual(strings);
    expect(reader.done).toBe(true);
  });
});

describe("a run's binary history", () => {
  const hosts: LockstepHost[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
  });

  it("decodes to the events its JSON lines show, re-encodes to the same hash, and hashes the same in every host and mode", async () => {
    const file = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/chaos-consumer.json", import.meta.url)));
    // The first 40 s: joins, polls over many partitions, connection faults and a crash.
    const spec = { ...toSimulationSpec(file, { seed: 2 }), durationUs: 40_000_000 };
    const lines: string[] = [];
    const inline = new InlineHost(spec, DEFAULT_REGISTRY, { history: { onLine: (line) => lines.push(line) } }).run();
    const decoded = inline.log.toArray();
    expect(decoded.length).toBeGreaterThan(1_000);
    expect(lines.slice(1)).toEqual(json(decoded));
    // Decoding then encoding again gives back the very record stream: the same hash.
    const header = JSON.parse(lines[0] as string) as HistoryHeader;
    expect(header.format).toBe(8);
    const again = new History(header);
    for (const event of decoded) again.record(event);
    expect(again.finish()).toBe(inline.historyHash);
    // The hash is made as the run goes: keeping no events changes nothing, nor does the host.
    const unkept = new InlineHost(spec, DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
    expect(unkept.historyHash).toBe(inline.historyHash);
    expect(unkept.log.toArray()).toEqual([]);
    const host = new LockstepHost(spec, { actorsPerWorker: "auto" });
    hosts.push(host);
    expect((await host.run()).historyHash).toBe(inline.historyHash);

    // Each poll is one line: a member.records when it returned records (a range per partition, each partition once,
    // counts that fit their offsets), else a member.poll (which counts nothing).
    const empty = decoded.flatMap((event) => (event.ev === "obs" && event.o.type === "member.poll" ? [event.o] : []));
    expect(empty.length).toBeGreaterThan(0);
    for (const o of empty) expect(Object.keys(o)).toEqual(["type", "memberId"]);
    const polls = decoded.flatMap((event) => (event.ev === "obs" && event.o.type === "member.records" ? [event.o] : []));
    expect(polls.some((o) => (o.ranges as unknown[]).length > 1)).toBe(true);
    for (const o of polls) {
      const ranges = o.ranges as { topic: string; partition: number; firstOffset: number; lastOffset: number; count: number }[];
      expect(ranges.length).toBeGreaterThan(0);
      expect(new Set(ranges.map((r) => `${r.topic}-${r.partition}`)).size).toBe(ranges.length);
      for (const r of ranges) expect(r.count >= 1 && r.count <= r.lastOffset - r.firstOffset + 1).toBe(true);
    }
    // A commit's offsets are a column pair per topic: one offset per partition, each partition once.
    const commits = decoded.flatMap((event) => (event.ev === "obs" && event.o.type === "member.commit" ? [event.o] : []));
    expect(commits.length).toBeGreaterThan(0);
    for (const o of commits) {
      expect(o).not.toHaveProperty("offsets");
      const topics = o.topics as { topic: string; partitions: number[]; offsets: number[] }[];
      expect(topics.length).toBeGreaterThan(0);
      for (const t of topics) {
        expect(t.offsets).toHaveLength(t.partitions.length);
        expect(new Set(t.partitions).size).toBe(t.partitions.length);
      }
    }
  }, 180_000);
});
