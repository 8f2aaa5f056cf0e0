import type { Micros, UniformSource } from "@kcsim/protocol";
import type { CachedPartition } from "./cached-partition.js";
import { INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from "./fetch-metadata.js";
import { FetchSession } from "./fetch-session.js";
import type { VirtualTimeMeter } from "./virtual-time-meter.js";

export interface FetchSessionCacheShardOptions {
  /** Sessions this shard may hold. */
  readonly maxEntries: number;
  /** How long a session must go unused (or, for evictability, exist) before it may be evicted. */
  readonly evictionAfter: Micros;
  /** Session ids this shard owns: max(1, shardNum * range) <= id < (shardNum + 1) * range. */
  readonly sessionIdRange: number;
  readonly shardNum: number;
  /** Uniform in [0, 1): draws session ids. */
  readonly random: UniformSource;
  /** Shared by all shards of a cache, as Kafka's is. */
  readonly evictionsMeter: VirtualTimeMeter;
}

/** Draws before `newSessionId` stops trusting the random source and probes linearly. */
const MAX_RANDOM_ID_DRAWS = 64;

/** Kafka's EvictableKey order: (privileged, size, id), false before true. */
function compareEvictable(
  a: { privileged: boolean; size: number; id: number },
  b: { privileged: boolean; size: number; id: number },
): number {
  if (a.privileged !== b.privileged) return a.privileged ? 1 : -1;
  if (a.size !== b.size) return a.size - b.size;
  return a.id - b.id;
}

/**
 * One shard of the broker's fetch session cache (Kafka's
 * `FetchSessionCacheShard`, KAFKA-9401): its own sessions, id range,
 * LRU order and eviction. Kafka keeps the LRU and evictable orders in tree
 * maps; a shard holds at most `maxEntries` (125 by default), so a scan finds
 * the same minimum.
 */
export class FetchSessionCacheShard {
  readonly maxEntries: number;
  readonly evictionAfter: Micros;
  readonly sessionIdRange: number;
  readonly shardNum: number;
  readonly #random: UniformSource;
  readonly #evictionsMeter: VirtualTimeMeter;
  readonly #sessions = new Map<number, FetchSession>();
  #numPartitions = 0;

  constructor(options: FetchSessionCacheShardOptions) {
    this.maxEntries = options.maxEntries;
    this.evictionAfter = options.evictionAfter;
    this.sessionIdRange = options.sessionIdRange;
    this.shardNum = options.shardNum;
    this.#random = options.random;
    this.#evictionsMeter = options.evictionsMeter;
  }

  get(sessionId: number): FetchSession | undefined {
    return this.#sessions.get(sessionId);
  }

  /** Sessions in this shard. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Partitions cached in this shard, as of each session's last touch. */
  get totalPartitions(): number {
    return this.#numPartitions;
  }

  sessions(): IterableIterator<FetchSession> {
    return this.#sessions.values();
  }

  /** A new session id in this shard's range, never 0 and never one in use. */
  newSessionId(): number {
    const low = Math.max(1, this.shardNum * this.sessionIdRange);
    const high = (this.shardNum + 1) * this.sessionIdRange; // exclusive
    const span = high - low;
    let id = INVALID_SESSION_ID;
    for (let draw = 0; draw < MAX_RANDOM_ID_DRAWS; draw++) {
      id = low + Math.floor(this.#random() * span);
      if (id !== INVALID_SESSION_ID && !this.#sessions.has(id)) return id;
    }
    // Kafka would redraw forever; a degenerate source (a constant in tests) must not hang the sim.
    for (let step = 1; step <= span; step++) {
      const probe = low + ((id - low + step) % span);
      if (probe !== INVALID_SESSION_ID && !this.#sessions.has(probe)) return probe;
    }
    throw new RangeError(`fetch session shard ${this.shardNum} has no free session id`);
  }

  /**
   * Creates a session if there is room or an eviction makes room; returns
   * its id (its epoch is 1), or INVALID_SESSION_ID if none was created.
   */
  maybeCreateSession(
    now: Micros,
    privileged: boolean,
    size: number,
    usesTopicIds: boolean,
    createPartitions: () => Map<string, CachedPartition>,
  ): number {
    if (this.#sessions.size < this.maxEntries || this.#tryEvict(privileged, size, now)) {
      const session = new FetchSession(
        this.newSessionId(),
        privileged,
        createPartitions(),
        usesTopicIds,
        now,
        now,
        nextEpoch(INITIAL_EPOCH),
      );
      this.#sessions.set(session.id, session);
      this.touch(session, now);
      return session.id;
    }
    return INVALID_SESSION_ID;
  }

  /**
   * A proposed new session may evict an existing one if (1) the least
   * recently used session has been idle longer than the eviction time, else
   * (2) the new key (privileged, size, id 0) is not below the smallest
   * evictable key: a privileged session beats any unprivileged one, otherwise
   * strictly more partitions are needed. Evictable by a privileged session:
   * unprivileged ones, and privileged ones older than the eviction time; by
   * an unprivileged session: only ones older than the eviction time (both as
   * judged at their last touch).
   */
  #tryEvict(privileged: boolean, size: number, now: Micros): boolean {
    let lru: FetchSession | undefined;
    for (const s of this.#sessions.values()) {
      if (lru === undefined || s.lastUsedAt < lru.lastUsedAt || (s.lastUsedAt === lru.lastUsedAt && s.id < lru.id)) lru = s;
    }
    if (lru === undefined) return false;
    if (now - lru.lastUsedAt > this.evictionAfter) {
      this.remove(lru);
      this.#evictionsMeter.mark(now);
      return true;
    }
    let victim: FetchSession | undefined;
    for (const s of this.#sessions.values()) {
      const evictable = privileged ? s.evictableByPrivileged : s.evictableByAll;
      if (evictable && (victim === undefined || compareEvictable(evictableKey(s), evictableKey(victim)) < 0)) victim = s;
    }
    if (victim === undefined) return false;
    if (compareEvictable({ privileged, size, id: 0 }, evictableKey(victim)) < 0) return false;
    this.remove(victim);
    this.#evictionsMeter.mark(now);
    return true;
  }

  /** Removes a session (by id or object); returns it, or undefined if this shard did not hold it. */
  remove(sessionOrId: FetchSession | number): FetchSession | undefined {
    const id = typeof sessionOrId === "number" ? sessionOrId : sessionOrId.id;
    const session = this.#sessions.get(id);
    if (session === undefined || (typeof sessionOrId !== "number" && session !== sessionOrId)) return undefined;
    this.#sessions.delete(id);
    session.evictableByAll = false;
    session.evictableByPrivileged = false;
    this.#numPartitions -= session.cachedSize;
    return session;
  }

  /** Marks a session used now and re-files it for eviction with its current size. */
  touch(session: FetchSession, now: Micros): void {
    session.lastUsedAt = now;
    if (session.cachedSize !== -1) this.#numPartitions -= session.cachedSize;
    session.cachedSize = session.size;
    const old = now - session.createdAt > this.evictionAfter;
    session.evictableByPrivileged = !session.privileged || old;
    session.evictableByAll = old;
    this.#numPartitions += session.cachedSize;
  }
}

function evictableKey(session: FetchSession): { privileged: boolean; size: number; id: number } {
  return { privileged: session.privileged, size: session.cachedSize, id: session.id };
}
