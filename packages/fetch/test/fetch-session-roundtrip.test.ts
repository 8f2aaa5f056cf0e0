import { ErrorCode, type FetchRequest, type FetchResponse, ms, seconds, topicIdFor } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FetchManager,
  FetchSessionCache,
  FetchSessionHandler,
  fetchRequestFor,
  INVALID_SESSION_ID,
  type PartitionReadResult,
  topicIdPartitionKey,
} from "../src/index.js";
import { fetchData, randomFor, read } from "./fetch-fixtures.js";

/**
 * A client handler and a broker fetch manager talk for many rounds while the
 * client adds and removes partitions, topics are recreated, logs grow, and
 * requests are lost, duplicated or crowded out of the cache. After every
 * round the client gets a usable response for, the two must agree on the
 * session, and the client must know every change of every partition it wants.
 */

const TOPICS = ["t0", "t1", "t2"] as const;
const PARTITIONS_PER_TOPIC = 6;
const UNIVERSE = TOPICS.length * PARTITIONS_PER_TOPIC;
const RECORD_BYTES = 10;

type Op =
  | { readonly kind: "add" | "remove" | "truncate" | "glitch"; readonly p: number }
  | { readonly kind: "produce"; readonly p: number; readonly records: number }
  | { readonly kind: "fetch" | "evict" | "lost" | "intruder" | "idle" }
  | { readonly kind: "duplicate"; readonly answer: "first" | "second" }
  | { readonly kind: "recreate"; readonly topic: number };

const partitionIndex = fc.nat({ max: UNIVERSE - 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: "fetch" } as const) },
  { weight: 3, arbitrary: partitionIndex.map((p) => ({ kind: "add", p }) as const) },
  { weight: 2, arbitrary: partitionIndex.map((p) => ({ kind: "remove", p }) as const) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("produce" as const), p: partitionIndex, records: fc.integer({ min: 1, max: 5 }) }),
  },
  { weight: 1, arbitrary: partitionIndex.map((p) => ({ kind: "truncate", p }) as const) },
  { weight: 1, arbitrary: partitionIndex.map((p) => ({ kind: "glitch", p }) as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { kind: "evict" } as const,
      { kind: "lost" } as const,
      { kind: "intruder" } as const,
      { kind: "idle" } as const,
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom("first" as const, "second" as const).map((answer) => ({ kind: "duplicate", answer }) as const) },
  { weight: 1, arbitrary: fc.nat({ max: TOPICS.length - 1 }).map((topic) => ({ kind: "recreate", topic }) as const) },
);

interface Log {
  highWatermark: number;
  logStartOffset: number;
}

class World {
  readonly manager = new FetchManager(new FetchSessionCache({ random: randomFor("roundtrip"), shardCount: 1, maxSlots: 2 }));
  readonly handler = new FetchSessionHandler(1);
  /** Topic ids by topic, changed when a topic is recreated. */
  readonly topicIds: string[] = TOPICS.map((t) => topicIdFor(`${t}#0`));
  readonly incarnations: number[] = TOPICS.map(() => 0);
  /** Partition index (into the universe) -> the next offset the client wants; insertion order is the fetch order. */
  readonly wanted = new Map<number, number>();
  /** What the client last heard about each partition: high watermark and log start offset, by topic id key. */
  readonly heard = new Map<string, Log>();
  readonly logs = new Map<string, Log>();
  /** What the client asked for in the last request it built: partition key -> fetch offset. */
  lastAsked = new Map<string, number>();
  /** Partitions whose next read fails. */
  readonly glitches = new Set<string>();
  /** Partitions that failed in the last response the client used: it does not know their state yet. */
  failedLastRound = new Set<string>();
  now = 0;
  correlationId = 0;
  usableRounds = 0;
  sessionRounds = 0;

  topicOf(p: number): number {
    return Math.floor(p / PARTITIONS_PER_TOPIC);
  }

  keyOf(p: number): string {
    return topicIdPartitionKey(this.topicIds[this.topicOf(p)]!, p % PARTITIONS_PER_TOPIC);
  }

  log(key: string): Log {
    let log = this.logs.get(key);
    if (log === undefined) {
      log = { highWatermark: 0, logStartOffset: 0 };
      this.logs.set(key, log);
    }
    return log;
  }

  buildRequest(): FetchRequest {
    const builder = this.handler.newBuilder();
    for (const [p, offset] of this.wanted) {
      const t = this.topicOf(p);
      builder.add({ topic: TOPICS[t]!, partition: p % PARTITIONS_PER_TOPIC }, fetchData(this.topicIds[t]!, { fetchOffset: offset }));
    }
    this.correlationId++;
    this.lastAsked = new Map([...this.wanted].map(([p, offset]) => [this.keyOf(p), offset]));
    return fetchRequestFor(builder.build(), {
      correlationId: this.correlationId,
      clientId: "c",
      replicaId: -1,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 1 << 20,
    });
  }

  /** The broker side of one request: context, reads from the logs, response. */
  serve(req: FetchRequest): FetchResponse {
    this.now += ms(10);
    const ctx = this.manager.newContext(req, this.now);
    const reads: PartitionReadResult[] = ctx.partitions().map((t) => {
      const key = topicIdPartitionKey(t.topicId, t.partition);
      const log = this.log(key);
      if (this.glitches.delete(key)) {
        // As Kafka's error path answers: no offsets known.
        return read(t.topicId, t.partition, { highWatermark: -1, logStartOffset: -1, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER });
      }
      const available = Math.max(0, log.highWatermark - Math.max(t.fetchOffset, log.logStartOffset));
      return read(t.topicId, t.partition, {
        highWatermark: log.highWatermark,
        logStartOffset: log.logStartOffset,
        ...(available > 0 ? { recordBytes: available * RECORD_BYTES } : {}),
      });
    });
    return ctx.updateAndGenerateResponse(reads, this.now);
  }

  /** The client side of one response. */
  receive(resp: FetchResponse): boolean {
    const usable = this.handler.handleResponse(resp);
    if (!usable) return false;
    this.failedLastRound = new Set();
    const names = this.handler.sessionTopicNames();
    for (const topic of resp.responses) {
      const t = TOPICS.indexOf(names.get(topic.topicId) as (typeof TOPICS)[number]);
      expect(t, "response topic is one the client asked for").toBeGreaterThanOrEqual(0);
      for (const part of topic.partitions) {
        const p = t * PARTITIONS_PER_TOPIC + part.partitionIndex;
        expect(this.wanted.has(p), `response partition ${p} is wanted`).toBe(true);
        const key = topicIdPartitionKey(topic.topicId, part.partitionIndex);
        if (part.errorCode !== ErrorCode.NONE) {
          this.heard.delete(key);
          this.failedLastRound.add(key);
          continue;
        }
        this.heard.set(key, { highWatermark: part.highWatermark, logStartOffset: part.logStartOffset });
        if (part.records.length > 0) this.wanted.set(p, part.highWatermark);
      }
    }
    return true;
  }

  fetch(): void {
    const resp = this.serve(this.buildRequest());
    if (this.receive(resp)) {
      this.usableRounds++;
      this.checkInSync();
    }
  }

  checkInSync(): void {
    // The client knows the current state of every partition it wants and has consumed all of it.
    for (const [p, offset] of this.wanted) {
      const key = this.keyOf(p);
      if (this.failedLastRound.has(key)) continue;
      const log = this.log(key);
      expect(this.heard.get(key), `client view of ${key}`).toEqual(log);
      // Nothing still in the log is left unread (records below the log start are gone).
      expect(Math.max(offset, log.logStartOffset), `consumed ${key}`).toBe(log.highWatermark);
    }
    const { sessionId, epoch } = this.handler.nextMetadata;
    if (sessionId === INVALID_SESSION_ID) return;
    this.sessionRounds++;
    const session = this.manager.cache.get(sessionId);
    expect(session, `broker holds session ${sessionId}`).toBeDefined();
    expect(session!.epoch).toBe(epoch);
    // The broker caches exactly the partitions of the client's session, with the offsets it last asked for.
    const brokerSide = new Map(Array.from(session!.partitions(), (c) => [topicIdPartitionKey(c.topicId, c.partition), c.fetchOffset]));
    expect(brokerSide).toEqual(this.lastAsked);
  }

  apply(op: Op): void {
    switch (op.kind) {
      case "add":
        if (!this.wanted.has(op.p)) this.wanted.set(op.p, 0);
        return;
      case "remove":
        this.wanted.delete(op.p);
        return;
      case "produce":
        this.log(this.keyOf(op.p)).highWatermark += op.records;
        return;
      case "glitch":
        this.glitches.add(this.keyOf(op.p));
        return;
      case "truncate": {
        const log = this.log(this.keyOf(op.p));
        if (log.logStartOffset < log.highWatermark) log.logStartOffset++;
        return;
      }
      case "fetch":
        this.fetch();
        return;
      case "evict":
        this.manager.cache.remove(this.handler.sessionId);
        return;
      case "lost": {
        // Processed by the broker, but the response never arrives.
        this.serve(this.buildRequest());
        this.handler.handleError();
        return;
      }
      case "duplicate": {
        const req = this.buildRequest();
        const first = this.serve(req);
        const second = this.serve(req);
        // A duplicate incremental request is refused: the epoch moved on (or the first copy emptied and dropped the session).
        if (req.sessionEpoch > 0)
          expect([ErrorCode.INVALID_FETCH_SESSION_EPOCH, ErrorCode.FETCH_SESSION_ID_NOT_FOUND]).toContain(second.errorCode);
        if (this.receive(op.answer === "first" ? first : second)) this.checkInSync();
        return;
      }
      case "intruder": {
        // A follower opens a privileged session with many partitions: it may evict ours.
        this.now += ms(10);
        const follower = fetchRequestFor(
          new FetchSessionHandler(9)
            .newBuilder()
            .add({ topic: "other", partition: 0 }, fetchData(topicIdFor("other")))
            .build(),
          { correlationId: 0, clientId: "follower", replicaId: 2, maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20 },
        );
        const ctx = this.manager.newContext(follower, this.now);
        ctx.updateAndGenerateResponse([read(topicIdFor("other"), 0)], this.now);
        return;
      }
      case "idle":
        this.now += seconds(121);
        return;
      case "recreate": {
        this.incarnations[op.topic] = (this.incarnations[op.topic] ?? 0) + 1;
        this.topicIds[op.topic] = topicIdFor(`${TOPICS[op.topic]}#${this.incarnations[op.topic]}`);
        for (const p of this.wanted.keys()) if (this.topicOf(p) === op.topic) this.wanted.set(p, 0);
        return;
      }
    }
  }
}

describe("fetch session round trip", () => {
  it("keeps a client handler and a broker cache in sync through random changes and faults", () => {
    let usable = 0;
    let inSession = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 120, size: "max" }), (ops) => {
        const world = new World();
        for (const op of ops) world.apply(op);
        // Whatever happened, two clean rounds bring the client back into sync.
        world.fetch();
        world.fetch();
        expect(world.usableRounds).toBeGreaterThan(0);
        usable += world.usableRounds;
        inSession += world.sessionRounds;
      }),
      { numRuns: 200, seed: 20_241_025 },
    );
    // The property ran mostly inside incremental sessions, not only sessionless.
    expect(inSession).toBeGreaterThan(usable / 2);
  });
});
