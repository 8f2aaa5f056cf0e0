import { type Micros, ms, seconds, type UniformSource } from "@kcsim/protocol";
import { INT32_MAX } from "./fetch-metadata.js";
import type { FetchSession } from "./fetch-session.js";
import { FetchSessionCacheShard } from "./fetch-session-cache-shard.js";
import { VirtualTimeMeter } from "./virtual-time-meter.js";

/** `max.incremental.fetch.session.cache.slots` default. */
export const DEFAULT_FETCH_SESSION_CACHE_SLOTS = 1000;
/** Kafka's `NumFetchSessionCacheShards`. */
export const FETCH_SESSION_CACHE_SHARDS = 8;
/** `MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS`, a constant in Kafka (not a config). */
export const MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120_000;

/** The metrics of `kafka.server:type=FetchSessionCache`, under their Kafka names. */
export interface FetchSessionCacheMetrics {
  readonly NumIncrementalFetchSessions: number;
  readonly NumIncrementalFetchPartitionsCached: number;
  /** The evictions meter: total count and rate (per second) over the asked window. */
  readonly IncrementalFetchSessionEvictionsPerSec: { readonly count: number; readonly rate: number };
}

export interface FetchSessionCacheOptions {
  /** Uniform in [0, 1): draws session ids (the broker actor's own stream). */
  readonly random: UniformSource;
  /** `max.incremental.fetch.session.cache.slots`, split evenly (integer division) over the shards. */
  readonly maxSlots?: number;
  readonly shardCount?: number;
  readonly evictionMs?: number;
  /** How far back the evictions meter can report a rate. */
  readonly meterRetention?: Micros;
}

/**
 * The broker's fetch session cache (Kafka's `FetchSessionCache`): sessions
 * are created in shards taken round-robin and found again by id, since each
 * shard owns the id range [max(1, n * range), (n + 1) * range) with
 * range = Integer.MAX_VALUE / shardCount.
 */
export class FetchSessionCache {
  readonly shards: readonly FetchSessionCacheShard[];
  readonly sessionIdRange: number;
  readonly evictions: VirtualTimeMeter;
  /** Kafka's round-robin counter is a static AtomicInteger; here each cache owns one, so runs stay deterministic. */
  #counter = 0;

  constructor(options: FetchSessionCacheOptions) {
    const shardCount = options.shardCount ?? FETCH_SESSION_CACHE_SHARDS;
    const maxSlots = options.maxSlots ?? DEFAULT_FETCH_SESSION_CACHE_SLOTS;
    if (!Number.isInteger(shardCount) || shardCount < 1) throw new RangeError(`shard count must be a positive integer, got ${shardCount}`);
    if (!Number.isInteger(maxSlots) || maxSlots < 0) throw new RangeError(`cache slots must be a non-negative integer, got ${maxSlots}`);
    this.evictions = new VirtualTimeMeter(options.meterRetention);
    this.sessionIdRange = Math.floor(INT32_MAX / shardCount);
    const shards: FetchSessionCacheShard[] = [];
    for (let shardNum = 0; shardNum < shardCount; shardNum++) {
      shards.push(
        new FetchSessionCacheShard({
          maxEntries: Math.floor(maxSlots / shardCount),
          evictionAfter: ms(options.evictionMs ?? MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS),
          sessionIdRange: this.sessionIdRange,
          shardNum,
          random: options.random,
          evictionsMeter: this.evictions,
        }),
      );
    }
    this.shards = shards;
  }

  /**
   * The shard owning a session id, or undefined for an id no shard owns
   * (negative, or in the sliver above shardCount * range, where Kafka would
   * throw IndexOutOfBounds).
   */
  shardFor(sessionId: number): FetchSessionCacheShard | undefined {
    if (sessionId < 0) return undefined;
    return this.shards[Math.floor(sessionId / this.sessionIdRange)];
  }

  /** The shard the next new session goes to. */
  nextShard(): FetchSessionCacheShard {
    // Utils.toPositive(counter++) % size, with Java int overflow.
    const shard = this.shards[(this.#counter & 0x7fffffff) % this.shards.length] as FetchSessionCacheShard;
    this.#counter = (this.#counter + 1) | 0;
    return shard;
  }

  get(sessionId: number): FetchSession | undefined {
    return this.shardFor(sessionId)?.get(sessionId);
  }

  remove(sessionId: number): FetchSession | undefined {
    return this.shardFor(sessionId)?.remove(sessionId);
  }

  /** NumIncrementalFetchSessions. */
  get size(): number {
    let n = 0;
    for (const shard of this.shards) n += shard.size;
    return n;
  }

  /** NumIncrementalFetchPartitionsCached. */
  get totalPartitions(): number {
    let n = 0;
    for (const shard of this.shards) n += shard.totalPartitions;
    return n;
  }

  /** The three FetchSessionCache metrics; the eviction rate is over `window` (default one minute) ending at `now`. */
  metrics(now: Micros, window: Micros = seconds(60)): FetchSessionCacheMetrics {
    return {
      NumIncrementalFetchSessions: this.size,
      NumIncrementalFetchPartitionsCached: this.totalPartitions,
      IncrementalFetchSessionEvictionsPerSec: { count: this.evictions.count, rate: this.evictions.rate(now, window) },
    };
  }

  /** Test hook mirroring Kafka's `FetchSessionCache.COUNTER.set`. */
  setRoundRobinCounter(value: number): void {
    this.#counter = value | 0;
  }
}
