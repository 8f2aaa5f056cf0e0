import { ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  CachedPartition,
  FetchSessionCache,
  type FetchSessionCacheShard,
  INT32_MAX,
  INVALID_SESSION_ID,
  MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS,
  topicIdPartitionKey,
  VirtualTimeMeter,
} from "../src/index.js";
import { FOO, randomFor, target } from "./fetch-fixtures.js";

/** Kafka's `dummyCreate(size)`: a partition map of `size` partitions. */
function dummyCreate(size: number): () => Map<string, CachedPartition> {
  return () => {
    const map = new Map<string, CachedPartition>();
    for (let i = 0; i < size; i++) map.set(topicIdPartitionKey(FOO, i), CachedPartition.fromRequest(target(FOO, i)));
    return map;
  };
}

/** One shard, as Kafka's FetchSessionTest builds it: `new FetchSessionCacheShard(maxEntries, evictionMs, Int.MaxValue, 0)`. */
function singleShard(maxEntries: number, evictionMs: number): FetchSessionCacheShard {
  const cache = new FetchSessionCache({ random: randomFor("single"), shardCount: 1, maxSlots: maxEntries, evictionMs });
  return cache.shards[0] as FetchSessionCacheShard;
}

function create(shard: FetchSessionCacheShard, atMs: number, privileged: boolean, size: number): number {
  return shard.maybeCreateSession(ms(atMs), privileged, size, true, dummyCreate(size));
}

function expectContainsExactly(shard: FetchSessionCacheShard, ...ids: number[]): void {
  for (const id of ids) expect(shard.get(id), `session ${id}`).toBeDefined();
  expect(shard.size).toBe(ids.length);
}

function touch(shard: FetchSessionCacheShard, id: number, atMs: number): void {
  const session = shard.get(id);
  if (session === undefined) throw new Error(`no session ${id}`);
  shard.touch(session, ms(atMs));
}

describe("FetchSessionCache: session ids", () => {
  it("draws positive ids, never 0 and never one in use (Kafka testNewSessionId)", () => {
    const shard = singleShard(3, 100);
    for (let i = 0; i <= 10_000; i++) expect(shard.newSessionId()).toBeGreaterThan(0);
  });

  it("never repeats an id in use even with a degenerate random source", () => {
    const cache = new FetchSessionCache({ random: () => 0, shardCount: 1, maxSlots: 50 });
    const shard = cache.shards[0] as FetchSessionCacheShard;
    const ids = Array.from({ length: 50 }, (_, i) => create(shard, i, false, 1));
    expect(new Set(ids).size).toBe(50);
    expect(ids).not.toContain(INVALID_SESSION_ID);
  });

  it("keeps each shard inside its own id range", () => {
    const cache = new FetchSessionCache({ random: randomFor("ranges") });
    const range = Math.floor(INT32_MAX / 8);
    expect(cache.sessionIdRange).toBe(range);
    for (const shard of cache.shards) {
      for (let i = 0; i < 200; i++) {
        const id = shard.newSessionId();
        expect(id).toBeGreaterThanOrEqual(Math.max(1, shard.shardNum * range));
        expect(id).toBeLessThan((shard.shardNum + 1) * range);
        expect(cache.shardFor(id)).toBe(shard);
      }
    }
  });
});

describe("FetchSessionCache: eviction", () => {
  it("evicts the stale LRU session first, then by (privileged, size, id) (Kafka testSessionCache)", () => {
    const shard = singleShard(3, 100);
    expect(shard.size).toBe(0);
    const id1 = create(shard, 0, false, 10);
    const id2 = create(shard, 10, false, 20);
    const id3 = create(shard, 20, false, 30);
    // Full; nothing idle > 100 ms and nothing older than 100 ms: no eviction, whatever the size.
    expect(create(shard, 30, false, 40)).toBe(INVALID_SESSION_ID);
    expect(create(shard, 40, false, 5)).toBe(INVALID_SESSION_ID);
    expectContainsExactly(shard, id1, id2, id3);
    touch(shard, id1, 200);
    // id2 (last used at 10) is the LRU and idle 200 > 100 ms: evicted although id1 is smaller.
    const id4 = create(shard, 210, false, 11);
    expectContainsExactly(shard, id1, id3, id4);
    touch(shard, id1, 400);
    touch(shard, id3, 390);
    touch(shard, id4, 400);
    // Nothing idle; evictable by all: id1 (10), id3 (30), id4 (11): 50 partitions beat the smallest, id1.
    const id5 = create(shard, 410, false, 50);
    expectContainsExactly(shard, id3, id4, id5);
    // 5 partitions beat nobody unprivileged...
    expect(create(shard, 410, false, 5)).toBe(INVALID_SESSION_ID);
    // ...but a privileged session beats any unprivileged one: the smallest, id4, goes.
    const id6 = create(shard, 410, true, 5);
    expectContainsExactly(shard, id3, id5, id6);
  });

  it("accounts partitions and evictions, and follows a resize at the next touch (Kafka testResizeCachedSessions)", () => {
    const cache = new FetchSessionCache({ random: randomFor("resize"), shardCount: 1, maxSlots: 2, evictionMs: 100 });
    const shard = cache.shards[0] as FetchSessionCacheShard;
    expect(shard.totalPartitions).toBe(0);
    expect(cache.evictions.count).toBe(0);
    const id1 = create(shard, 0, false, 2);
    expect(id1).toBeGreaterThan(0);
    const session1 = shard.get(id1)!;
    expect(session1.size).toBe(2);
    expect(shard.totalPartitions).toBe(2);
    const id2 = create(shard, 0, false, 4);
    const session2 = shard.get(id2)!;
    expectContainsExactly(shard, id1, id2);
    expect(shard.totalPartitions).toBe(6);
    expect(cache.evictions.count).toBe(0);
    shard.touch(session1, ms(200));
    shard.touch(session2, ms(200));
    const id3 = create(shard, 200, false, 5);
    expect(id3).toBeGreaterThan(0);
    expectContainsExactly(shard, id2, id3);
    expect(shard.totalPartitions).toBe(9);
    expect(cache.evictions.count).toBe(1);
    shard.remove(id3);
    expectContainsExactly(shard, id2);
    expect(cache.evictions.count).toBe(1);
    expect(shard.totalPartitions).toBe(4);
    session2.removePartition(FOO, 0);
    expect(session2.size).toBe(3);
    expect(session2.cachedSize).toBe(4);
    shard.touch(session2, session2.lastUsedAt);
    expect(shard.totalPartitions).toBe(3);
  });

  it("evicts the LRU session once idle more than 120 s, before comparing sizes", () => {
    const cache = new FetchSessionCache({ random: randomFor("lru"), shardCount: 1, maxSlots: 3 });
    const shard = cache.shards[0] as FetchSessionCacheShard;
    const big = create(shard, 0, false, 100);
    const small = create(shard, 1_000, false, 1);
    const middle = create(shard, 2_000, false, 50);
    // Used recently, but younger than 120 s at that touch: not evictable by size.
    touch(shard, small, 100_000);
    touch(shard, middle, 100_000);
    // At exactly 120 s idle the LRU (`big`) is not yet stale, and nothing is evictable: no room.
    expect(create(shard, 120_000, false, 2)).toBe(INVALID_SESSION_ID);
    // Just past 120 s idle, the LRU goes even though it is the largest session.
    const fresh = create(shard, 120_001, false, 2);
    expect(fresh).toBeGreaterThan(0);
    expectContainsExactly(shard, small, middle, fresh);
    expect(shard.get(big)).toBeUndefined();
  });

  it("lets an unprivileged session evict only sessions older than 120 s, and only with strictly more partitions", () => {
    const cache = new FetchSessionCache({ random: randomFor("unpriv"), shardCount: 1, maxSlots: 2 });
    const shard = cache.shards[0] as FetchSessionCacheShard;
    const a = create(shard, 0, false, 10);
    const b = create(shard, 0, false, 20);
    // Keep both busy; at 100 s neither is older than 120 s.
    touch(shard, a, 100_000);
    touch(shard, b, 100_000);
    expect(create(shard, 100_000, false, 1_000)).toBe(INVALID_SESSION_ID);
    // Touched again after 120 s of age: now evictable by all.
    touch(shard, a, 125_000);
    touch(shard, b, 125_000);
    // Equal size is not enough (new key (false, 10, 0) < (false, 10, a)).
    expect(create(shard, 125_000, false, 10)).toBe(INVALID_SESSION_ID);
    const c = create(shard, 125_000, false, 11);
    expectContainsExactly(shard, b, c);
    expect(cache.evictions.count).toBe(1);
  });

  it("lets a privileged session evict any unprivileged one, but privileged ones only when older than 120 s and smaller", () => {
    const cache = new FetchSessionCache({ random: randomFor("priv"), shardCount: 1, maxSlots: 2 });
    const shard = cache.shards[0] as FetchSessionCacheShard;
    const follower = create(shard, 0, true, 500);
    const consumer = create(shard, 1, false, 1_000);
    // An unprivileged newcomer cannot evict either (neither is older than 120 s).
    expect(create(shard, 2, false, 5_000)).toBe(INVALID_SESSION_ID);
    // A privileged newcomer evicts the unprivileged one although it is larger and brand new.
    const follower2 = create(shard, 3, true, 1);
    expect(shard.get(consumer)).toBeUndefined();
    expectContainsExactly(shard, follower, follower2);
    // Privileged sessions younger than 120 s are not evictable by anyone.
    expect(create(shard, 4, true, 10_000)).toBe(INVALID_SESSION_ID);
    touch(shard, follower, 125_000);
    touch(shard, follower2, 125_000);
    // Older than 120 s at their last touch: evictable, but only by a privileged session with strictly more partitions.
    expect(create(shard, 125_000, true, 1)).toBe(INVALID_SESSION_ID);
    expect(create(shard, 125_000, false, 10_000)).toBe(INVALID_SESSION_ID);
    expect(create(shard, 125_000, true, 2)).toBeGreaterThan(0);
    expect(shard.get(follower2)).toBeUndefined();
    expect(shard.get(follower)).toBeDefined();
  });
});

describe("FetchSessionCache: shards", () => {
  it("splits 1000 slots into 8 shards of 125 and places sessions round-robin", () => {
    const cache = new FetchSessionCache({ random: randomFor("shards") });
    expect(cache.shards).toHaveLength(8);
    for (const shard of cache.shards) expect(shard.maxEntries).toBe(125);
    for (let i = 0; i < 16; i++) {
      const shard = cache.nextShard();
      expect(shard.shardNum).toBe(i % 8);
      const id = shard.maybeCreateSession(0, false, 3, true, dummyCreate(3));
      expect(cache.shardFor(id)).toBe(shard);
      expect(cache.get(id)?.id).toBe(id);
    }
    for (const shard of cache.shards) expect(shard.size).toBe(2);
    expect(cache.size).toBe(16);
    expect(cache.totalPartitions).toBe(48);
  });

  it("keeps the round robin going when the counter overflows (Kafka ..._WhenIntegerOverflows)", () => {
    const cache = new FetchSessionCache({ random: randomFor("overflow") });
    cache.setRoundRobinCounter(INT32_MAX + 1);
    for (let i = 0; i < 16; i++) expect(cache.nextShard().shardNum).toBe(i % 8);
  });

  it("finds the shard from the id, and no shard for ids outside every range (Kafka getShardedCache)", () => {
    const cache = new FetchSessionCache({ random: randomFor("ids") });
    const range = cache.sessionIdRange;
    expect(cache.shardFor(range - 1)).toBe(cache.shards[0]);
    expect(cache.shardFor(range)).toBe(cache.shards[1]);
    expect(cache.shardFor(range * 2)).toBe(cache.shards[2]);
    expect(cache.shardFor(range * 8)).toBeUndefined();
    expect(cache.shardFor(-5)).toBeUndefined();
  });

  it("evicts within the full shard only", () => {
    const cache = new FetchSessionCache({ random: randomFor("per-shard"), maxSlots: 16 }); // 2 per shard
    const ids = Array.from({ length: 16 }, () => cache.nextShard().maybeCreateSession(0, false, 1, true, dummyCreate(1)));
    expect(cache.size).toBe(16);
    // Shard 0 is next; it is full and its two sessions are fresh: nothing is created, nothing elsewhere is touched.
    expect(cache.nextShard().maybeCreateSession(ms(1_000), false, 1, true, dummyCreate(1))).toBe(INVALID_SESSION_ID);
    // Much later every session is stale, but shard 1 evicts only its own LRU.
    const id = cache.nextShard().maybeCreateSession(ms(200_000), false, 1, true, dummyCreate(1));
    expect(cache.shardFor(id)?.shardNum).toBe(1);
    expect(cache.size).toBe(16);
    const gone = ids.filter((i) => cache.get(i) === undefined);
    expect(gone).toHaveLength(1);
    expect(cache.shardFor(gone[0]!)?.shardNum).toBe(1);
  });

  it("creates no session at all when the slots are fewer than the shards", () => {
    const cache = new FetchSessionCache({ random: randomFor("tiny"), maxSlots: 7 });
    expect(cache.nextShard().maybeCreateSession(0, true, 10, true, dummyCreate(10))).toBe(INVALID_SESSION_ID);
  });
});

describe("FetchSessionCache: metrics", () => {
  it("reports sessions, cached partitions and the evictions meter", () => {
    const cache = new FetchSessionCache({ random: randomFor("metrics"), shardCount: 1, maxSlots: 1 });
    const shard = cache.shards[0] as FetchSessionCacheShard;
    create(shard, 0, false, 3);
    expect(cache.metrics(ms(0))).toEqual({
      NumIncrementalFetchSessions: 1,
      NumIncrementalFetchPartitionsCached: 3,
      IncrementalFetchSessionEvictionsPerSec: { count: 0, rate: 0 },
    });
    // Four evictions of stale sessions, 200 s apart.
    for (let i = 1; i <= 4; i++) create(shard, i * 200_000, false, i);
    const now = ms(800_000);
    const metrics = cache.metrics(now, seconds(60));
    expect(metrics.NumIncrementalFetchSessions).toBe(1);
    expect(metrics.NumIncrementalFetchPartitionsCached).toBe(4);
    expect(metrics.IncrementalFetchSessionEvictionsPerSec.count).toBe(4);
    expect(metrics.IncrementalFetchSessionEvictionsPerSec.rate).toBeCloseTo(1 / 60);
    expect(cache.evictions.rate(now, seconds(601))).toBeCloseTo(4 / 601);
    expect(MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS).toBe(120_000);
  });

  it("meters over virtual time: count, windowed rate, retention", () => {
    const meter = new VirtualTimeMeter(seconds(100));
    meter.mark(seconds(1));
    meter.mark(seconds(2), 3);
    meter.mark(seconds(50));
    expect(meter.count).toBe(5);
    expect(meter.rate(seconds(50), seconds(10))).toBeCloseTo(0.1);
    expect(meter.rate(seconds(50), seconds(50))).toBeCloseTo(5 / 50);
    // Marks older than the retention no longer count towards any rate, but stay in the count.
    expect(meter.rate(seconds(150), seconds(100))).toBeCloseTo(0);
    expect(meter.count).toBe(5);
    expect(() => meter.rate(seconds(150), seconds(101))).toThrow(RangeError);
  });
});
