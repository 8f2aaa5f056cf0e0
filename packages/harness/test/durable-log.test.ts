import { type Actor, type Context, decodeUnchecked, encodeValue, type JsonValue } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ActorMirror } from "../src/hosts/worker/actor-mirror.js";
import { applyEffect } from "../src/hosts/worker/apply-effect.js";
import { ActorCell, type ActorRegistry, MemoryDurableLog, ShardRuntime } from "../src/index.js";
import type { SimulationCore } from "../src/kernel/simulation-core.js";
import { quietSink } from "./helpers.js";

/** A record with every kind of value the codec writes, nested. */
function sampleRecord(): { type: string; bytes: Uint8Array; big: bigint; nested: { list: unknown[]; missing: undefined } } {
  return {
    type: "sample",
    bytes: new Uint8Array([1, 2, 3]),
    big: 2n ** 40n,
    nested: { list: [1, "two", { three: 3 }, null, -0, 1.5], missing: undefined },
  };
}

/** What the log handed out before it kept records unencoded: the record decoded from its bytes at the append. */
const roundTrip = (record: unknown): unknown => decodeUnchecked(encodeValue(record));

describe("MemoryDurableLog", () => {
  it("keeps a record as it was appended: changing the actor's object afterwards changes nothing", () => {
    const log = new MemoryDurableLog();
    const record = sampleRecord();
    const expected = roundTrip(record);
    log.append(record);
    record.type = "changed";
    (record.bytes as Uint8Array)[0] = 99;
    record.nested.list.push("more");
    (record.nested.list[2] as { three: number }).three = 4;
    expect(log.readAll()).toEqual([expected]);
  });

  it("reads back what decoding the record's bytes gives, byte arrays and bigints included", () => {
    const log = new MemoryDurableLog();
    const records: unknown[] = [sampleRecord(), 5, "text", null, [1, [2]], new Map([["k", 1]]), new Date(1_000), { at: new Set([1]) }];
    for (const record of records) log.append(record);
    const read = log.readAll();
    expect(read).toEqual(records.map(roundTrip));
    expect(encodeValue(read)).toEqual(encodeValue(records.map(roundTrip)));
    expect(log.length).toBe(records.length);
  });

  it("hands out fresh objects on every read: a restarted actor changing them changes nothing", () => {
    const log = new MemoryDurableLog();
    log.append(sampleRecord()); // kept unencoded
    log.appendEncoded(encodeValue(sampleRecord())); // as a mirror holds it
    log.appendAndEncode(sampleRecord()); // as a worker holds it
    const first = log.readAll() as ReturnType<typeof sampleRecord>[];
    for (const record of first) {
      record.bytes[0] = 99;
      record.nested.list.length = 0;
      record.type = "changed";
    }
    const second = log.readAll() as ReturnType<typeof sampleRecord>[];
    expect(second).toEqual([roundTrip(sampleRecord()), roundTrip(sampleRecord()), roundTrip(sampleRecord())]);
    for (let i = 0; i < second.length; i++) expect(second[i]).not.toBe(first[i]);
  });

  it("throws at the append for a record the codec cannot write, and keeps nothing of it", () => {
    const log = new MemoryDurableLog();
    log.append({ ok: 1 });
    expect(() => encodeValue({ big: 2n ** 70n })).toThrow(RangeError);
    expect(() => log.append({ big: 2n ** 70n })).toThrow(RangeError);
    log.append({ ok: 2 });
    expect(log.readAll()).toEqual([{ ok: 1 }, { ok: 2 }]);
  });

  it("gives every record's bytes for a mirror, and a log rebuilt from them reads the same", () => {
    const log = new MemoryDurableLog();
    const records = [sampleRecord(), { second: [2] }, new Map([["third", 3]])];
    for (const record of records) log.append(record);
    expect(log.encoded()).toEqual(records.map(encodeValue));
    expect(new MemoryDurableLog(log.encoded()).readAll()).toEqual(log.readAll());
  });
});

/** Appends a record at every start and hands what it read back to the test. */
class Recorder implements Actor {
  constructor(readonly reads: unknown[][]) {}
  start(ctx: Context): void {
    this.reads.push(ctx.storage.readAll());
    ctx.storage.append({ boot: this.reads.length, bytes: new Uint8Array([this.reads.length]), big: BigInt(this.reads.length) });
  }
  receive(): void {}
  fire(): void {}
}

const bootRecord = (n: number) => roundTrip({ boot: n, bytes: new Uint8Array([n]), big: BigInt(n) });

describe("durable logs across hosts", () => {
  const cellOptions = (reads: unknown[][], storage: MemoryDurableLog) => ({
    id: "r",
    kind: "recorder",
    config: {} as JsonValue,
    factory: () => new Recorder(reads),
    seed: 1,
    rank: 0,
    messages: "frames" as const,
    network: "datagram" as const,
    restartPolicy: { mode: "restart" as const, delayUs: 1_000 },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    storage,
  });
  const control = (due: number, action: "start" | "crash" | "restart") =>
    ({ kind: "control", due, origin: "!nemesis", rank: 2, seq: due, sub: 0, to: "r", control: { action } }) as const;

  it("a sink without appended gets no bytes, and the restarted actor reads its records back", () => {
    const reads: unknown[][] = [];
    const cell = new ActorCell(cellOptions(reads, new MemoryDurableLog()), quietSink());
    cell.handle(control(0, "start"));
    cell.handle(control(1, "crash"));
    cell.handle(control(2, "restart"));
    expect(reads).toEqual([[], [bootRecord(1)]]);
  });

  it("a mirroring sink gets each record's bytes as the append happens", () => {
    const shipped: Uint8Array[] = [];
    const storage = new MemoryDurableLog();
    const cell = new ActorCell(cellOptions([], storage), { ...quietSink(), appended: (_actor, record) => shipped.push(record) });
    cell.handle(control(0, "start"));
    expect(shipped).toEqual([encodeValue({ boot: 1, bytes: new Uint8Array([1]), big: 1n })]);
    expect(storage.encoded()).toEqual(shipped);
  });

  it("a worker's records reach the main thread's mirror, and an actor rebuilt from the mirror reads them", () => {
    const reads: unknown[][] = [];
    const registry: ActorRegistry = new Map([["recorder", () => new Recorder(reads)]]);
    const settings = { seed: 1, useCodec: true, network: "connection", restartPolicy: { mode: "restart", delayUs: 1_000 } } as const;
    const shard = new ShardRuntime(settings, [{ id: "r", rank: 4, kind: "recorder", config: {}, log: [] }], registry);
    const outcome = shard.runWindow(0, [control(0, "start")]);
    const mirror = new ActorMirror("r");
    const mirrors = new Map([["r", mirror]]);
    // Only append effects reach the mirror without the core; the others are not this test's.
    for (const group of outcome.groups) {
      for (const effect of group[4]) if (effect[0] === "append") applyEffect(null as unknown as SimulationCore, mirrors, effect);
    }
    expect(mirror.log.readAll()).toEqual([bootRecord(1)]);
    // A crashed actor restarts in another worker from the mirror's copy (shard-actor-init).
    const rebuilt = new ShardRuntime(settings, [{ id: "r", rank: 4, kind: "recorder", config: {}, log: mirror.log.encoded() }], registry);
    rebuilt.runWindow(10, [control(10, "start")]);
    expect(reads).toEqual([[], [bootRecord(1)]]);
  });
});
