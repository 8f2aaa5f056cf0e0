import { ErrorCode, type FetchResponse, type FetchResponsePartition, type TopicPartition, tpKey } from "@kcsim/protocol";
import {
  type FetchMetadata,
  INITIAL_METADATA,
  INVALID_SESSION_ID,
  isFull,
  newIncremental,
  nextCloseExisting,
  nextCloseExistingAttemptNew,
  nextIncremental,
} from "./fetch-metadata.js";
import {
  type FetchRequestData,
  type NamedTopicIdPartition,
  type PartitionFetchData,
  type SessionPartition,
  samePartitionFetchData,
} from "./fetch-request-data.js";
import { ZERO_TOPIC_ID } from "./topic-id-partition.js";

/** Which build last wanted a key, and at what place in its request (see `#buildSameSession`). */
interface WantedMark {
  build: number;
  index: number;
}

/** The partitions a response names, resolved to topic names through the session's topic ids. */
interface ResponsePartitions {
  /** tpKeys of the partitions whose topic id the session knows. */
  readonly resolved: Set<string>;
  /** Partitions under topic ids the session does not know (Kafka's null-named TopicPartitions). */
  readonly unresolved: number;
  /** Topic ids of the response the session does not know. */
  readonly extraIds: Set<string>;
}

/**
 * The client's fetch session with one broker (Kafka's `FetchSessionHandler`,
 * KIP-227): which partitions are in the session, what the next request must
 * carry, and how each response moves the (session id, epoch) pair.
 *
 * Responses are matched by topic id (Fetch v13+, the only layout the sim's
 * messages have); a partition added with ZERO_TOPIC_ID can be requested but
 * never matched in a response.
 */
export class FetchSessionHandler {
  readonly node: number;
  #nextMetadata: FetchMetadata = INITIAL_METADATA;
  /** The session's partitions by tpKey, in session order. */
  #sessionPartitions = new Map<string, SessionPartition>();
  /** Topic id -> name of the session's topics (empty when the session cannot use topic ids). */
  #sessionTopicNames: ReadonlyMap<string, string> = new Map();
  /** Builds so far, and each wanted key's mark from the last build that used them (see `#buildSameSession`); a key keeps its mark object. */
  #builds = 0;
  readonly #wantedMarks = new Map<string, WantedMark>();
  /**
   * `[...#sessionPartitions.values()]` as of the last build, or null once the
   * session changed since: a steady fetcher's builds change nothing, and each
   * gets the same (read-only) list instead of a copy.
   */
  #snapshot: readonly SessionPartition[] | null = null;
  /** The wanted list of the last build, emptied, for the next builder (null while a builder holds it). */
  #spareWanted: WantedPartitions | null = null;

  constructor(node: number) {
    this.node = node;
  }

  get sessionId(): number {
    return this.#nextMetadata.sessionId;
  }

  /** The metadata the next request will carry. */
  get nextMetadata(): FetchMetadata {
    return this.#nextMetadata;
  }

  sessionTopicNames(): ReadonlyMap<string, string> {
    return this.#sessionTopicNames;
  }

  sessionTopicPartitions(): TopicPartition[] {
    return Array.from(this.#sessionPartitions.values(), ({ topic, partition }) => ({ topic, partition }));
  }

  /** A builder for the next request: add every partition wanted, in priority order, then build once. */
  newBuilder(): FetchRequestBuilder {
    const wanted = this.#spareWanted ?? new WantedPartitions();
    this.#spareWanted = null;
    return new FetchRequestBuilder(wanted, (topicNames, canUseTopicIds) => {
      const built = this.#buildFrom(wanted, topicNames, canUseTopicIds);
      // Nothing built keeps the wanted list: the next builder fills it again.
      wanted.clear();
      this.#spareWanted = wanted;
      return built;
    });
  }

  #buildFrom(wanted: WantedPartitions, topicNames: Map<string, string>, canUseTopicIds: boolean): FetchRequestData {
    if (!isFull(this.#nextMetadata)) {
      const same = this.#buildSameSession(wanted, topicNames, canUseTopicIds);
      if (same !== undefined) return same;
    }
    return this.#build(wanted.asMap(), topicNames, canUseTopicIds);
  }

  /**
   * The incremental build when the request wants exactly the session's
   * partitions, each once (a fetcher's steady state): what `#build` makes
   * then, without its map of the wanted partitions. Undefined when the
   * request adds, drops or repeats a partition (`#build` handles those).
   */
  #buildSameSession(wanted: WantedPartitions, topicNames: Map<string, string>, canUseTopicIds: boolean): FetchRequestData | undefined {
    const session = this.#sessionPartitions;
    const { keys, entries, count } = wanted;
    if (count !== session.size) return undefined;
    // Each wanted key is marked with this build and its place in the request: a second mark in one build means a repeat.
    const build = ++this.#builds;
    const marks = this.#wantedMarks;
    let altered = 0;
    for (let i = 0; i < count; i++) {
      const key = keys[i] as string;
      const prev = session.get(key);
      if (prev === undefined) return undefined;
      const mark = marks.get(key);
      if (mark === undefined) marks.set(key, { build, index: i });
      else if (mark.build === build) return undefined;
      else {
        mark.build = build;
        mark.index = i;
      }
      const entry = entries[i] as SessionPartition;
      if (prev !== entry && !samePartitionFetchData(prev.data, entry.data)) altered++;
    }
    // As many distinct wanted keys as the session has, all in it: the same partitions. Altered ones go out in session order.
    const toSend: SessionPartition[] = [];
    const replaced: NamedTopicIdPartition[] = [];
    if (altered > 0) {
      // By key, then a lookup: a Map's entries iterator makes a [key, value] array per step.
      for (const key of session.keys()) {
        const prev = session.get(key) as SessionPartition;
        const entry = entries[(marks.get(key) as WantedMark).index] as SessionPartition;
        if (prev === entry || samePartitionFetchData(prev.data, entry.data)) continue;
        // The topic was recreated: forget it under the old id, send it again under the new one.
        if (prev.data.topicId !== entry.data.topicId && prev.data.topicId !== ZERO_TOPIC_ID && entry.data.topicId !== ZERO_TOPIC_ID) {
          replaced.push({ topicId: prev.data.topicId, topic: prev.topic, partition: prev.partition });
        }
        session.set(key, entry);
        this.#snapshot = null;
        toSend.push(entry);
        if (--altered === 0) break;
      }
    }
    this.#sessionTopicNames = canUseTopicIds ? topicNames : new Map();
    return {
      toSend,
      toForget: [],
      toReplace: replaced,
      sessionPartitions: this.#sessionSnapshot(),
      metadata: this.#nextMetadata,
      canUseTopicIds,
    };
  }

  #sessionSnapshot(): readonly SessionPartition[] {
    this.#snapshot ??= [...this.#sessionPartitions.values()];
    return this.#snapshot;
  }

  #build(next: Map<string, SessionPartition>, topicNames: Map<string, string>, canUseTopicIdsIn: boolean): FetchRequestData {
    // The marks of `#buildSameSession` only need keys it will look up again: forget the others as the session changes.
    this.#wantedMarks.clear();
    this.#snapshot = null;
    let canUseTopicIds = canUseTopicIdsIn;
    if (isFull(this.#nextMetadata)) {
      this.#sessionPartitions = next;
      this.#sessionTopicNames = canUseTopicIds ? topicNames : new Map();
      const all = [...next.values()];
      this.#snapshot = all;
      return { toSend: all, toForget: [], toReplace: [], sessionPartitions: all, metadata: this.#nextMetadata, canUseTopicIds };
    }
    const removed: NamedTopicIdPartition[] = [];
    const replaced: NamedTopicIdPartition[] = [];
    // By key, then a lookup (no [key, value] array per step); setting a key already there keeps its place.
    for (const key of this.#sessionPartitions.keys()) {
      const prev = this.#sessionPartitions.get(key) as SessionPartition;
      const wanted = next.get(key);
      if (wanted === undefined) {
        this.#sessionPartitions.delete(key);
        removed.push({ topicId: prev.data.topicId, topic: prev.topic, partition: prev.partition });
        if (canUseTopicIds && prev.data.topicId === ZERO_TOPIC_ID) canUseTopicIds = false;
        continue;
      }
      next.delete(key);
      const idChanged =
        prev.data.topicId !== wanted.data.topicId && prev.data.topicId !== ZERO_TOPIC_ID && wanted.data.topicId !== ZERO_TOPIC_ID;
      if (idChanged) {
        // The topic was recreated: forget it under the old id, send it again under the new one.
        next.set(key, wanted);
        this.#sessionPartitions.set(key, wanted);
        replaced.push({ topicId: prev.data.topicId, topic: prev.topic, partition: prev.partition });
      } else if (!samePartitionFetchData(prev.data, wanted.data)) {
        // Altered partitions go to the end of `next`, after the added ones.
        next.set(key, wanted);
        this.#sessionPartitions.set(key, wanted);
      }
    }
    // The new partitions join the session; everything already in it was moved behind them above.
    for (const key of next.keys()) {
      if (this.#sessionPartitions.has(key)) break;
      this.#sessionPartitions.set(key, next.get(key) as SessionPartition);
    }
    this.#sessionTopicNames = canUseTopicIds ? topicNames : new Map();
    return {
      toSend: [...next.values()],
      toForget: removed,
      toReplace: replaced,
      sessionPartitions: this.#sessionSnapshot(),
      metadata: this.#nextMetadata,
      canUseTopicIds,
    };
  }

  #responsePartitions(response: FetchResponse): ResponsePartitions {
    const resolved = new Set<string>();
    const extraIds = new Set<string>();
    let unresolved = 0;
    for (const topic of response.responses) {
      const name = this.#sessionTopicNames.get(topic.topicId);
      if (name === undefined) {
        extraIds.add(topic.topicId);
        unresolved += topic.partitions.length;
        continue;
      }
      for (const p of topic.partitions) resolved.add(tpKey(name, p.partitionIndex));
    }
    return { resolved, unresolved, extraIds };
  }

  /** Whether every partition a response names is one of the session's (under a topic id the session knows). */
  #withinSession(response: FetchResponse): boolean {
    // Indexed loops: a delivered message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
    const topics = response.responses;
    for (let t = 0; t < topics.length; t++) {
      const topic = topics[t] as FetchResponse["responses"][number];
      const name = this.#sessionTopicNames.get(topic.topicId);
      if (name === undefined) return false;
      const partitions = topic.partitions;
      for (let p = 0; p < partitions.length; p++) {
        if (!this.#sessionPartitions.has(tpKey(name, (partitions[p] as FetchResponsePartition).partitionIndex))) return false;
      }
    }
    return true;
  }

  /** Why a full response does not list exactly the session's partitions, or undefined if it does. */
  verifyFullFetchResponsePartitions(response: FetchResponse): string | undefined {
    const { resolved, unresolved, extraIds } = this.#responsePartitions(response);
    const extra = [...resolved].filter((key) => !this.#sessionPartitions.has(key));
    const omitted = [...this.#sessionPartitions.keys()].filter((key) => !resolved.has(key));
    const problems: string[] = [];
    if (omitted.length > 0) problems.push(`omittedPartitions=(${omitted.join(", ")})`);
    if (extra.length > 0 || unresolved > 0)
      problems.push(`extraPartitions=(${extra.join(", ")}${unresolved > 0 ? `, ${unresolved} unresolved` : ""})`);
    if (extraIds.size > 0) problems.push(`extraIds=(${[...extraIds].join(", ")})`);
    return problems.length > 0 ? problems.join(", ") : undefined;
  }

  /** Why an incremental response names partitions outside the session, or undefined if it does not. */
  verifyIncrementalFetchResponsePartitions(response: FetchResponse): string | undefined {
    // Checked on every response: the sets that describe a problem are made only when there is one.
    if (this.#withinSession(response)) return undefined;
    const { resolved, unresolved, extraIds } = this.#responsePartitions(response);
    const extra = [...resolved].filter((key) => !this.#sessionPartitions.has(key));
    const problems: string[] = [];
    if (extra.length > 0 || unresolved > 0)
      problems.push(`extraPartitions=(${extra.join(", ")}${unresolved > 0 ? `, ${unresolved} unresolved` : ""})`);
    if (extraIds.size > 0) problems.push(`extraIds=(${[...extraIds].join(", ")})`);
    return problems.length > 0 ? problems.join(", ") : undefined;
  }

  /**
   * Moves the session by a response; returns false if the response cannot be
   * used (a top-level error, or partitions that do not fit the session).
   * FETCH_SESSION_ID_NOT_FOUND -> (0, 0); any other top-level error -> (id, 0),
   * which closes the session and asks for a new one. Full: must list exactly
   * the session's partitions, else (0, 0); session id 0 -> (0, 0), else (id, 1).
   * Incremental: partitions outside the session -> (id, 0); session id 0 ->
   * (0, 0); else the epoch advances.
   */
  handleResponse(response: FetchResponse): boolean {
    if (response.errorCode !== ErrorCode.NONE) {
      this.#nextMetadata =
        response.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND ? INITIAL_METADATA : nextCloseExistingAttemptNew(this.#nextMetadata);
      return false;
    }
    if (isFull(this.#nextMetadata)) {
      const empty = response.responses.every((topic) => topic.partitions.length === 0);
      if (empty && response.throttleTimeMs > 0) {
        // KIP-219: a throttled full request gets an empty response; not an error, but nothing to process.
        this.#nextMetadata = INITIAL_METADATA;
        return false;
      }
      if (this.verifyFullFetchResponsePartitions(response) !== undefined) {
        this.#nextMetadata = INITIAL_METADATA;
        return false;
      }
      this.#nextMetadata = response.sessionId === INVALID_SESSION_ID ? INITIAL_METADATA : newIncremental(response.sessionId);
      return true;
    }
    if (this.verifyIncrementalFetchResponsePartitions(response) !== undefined) {
      this.#nextMetadata = nextCloseExistingAttemptNew(this.#nextMetadata);
      return false;
    }
    this.#nextMetadata = response.sessionId === INVALID_SESSION_ID ? INITIAL_METADATA : nextIncremental(this.#nextMetadata);
    return true;
  }

  /** The request could not be sent or answered (a transport error): close and recreate the session. */
  handleError(): void {
    this.#nextMetadata = nextCloseExistingAttemptNew(this.#nextMetadata);
  }

  /** The next request closes the session and creates none (consumer shutdown). */
  notifyClose(): void {
    this.#nextMetadata = nextCloseExisting(this.#nextMetadata);
  }
}

/** Collects the partitions wanted next (Kafka's `FetchSessionHandler.Builder`); builds once. */
export class FetchRequestBuilder {
  /** Wanted partitions, in the order added (the broker reads them in this order); undefined once built. */
  #wanted: WantedPartitions | undefined;
  readonly #topicNames = new Map<string, string>();
  #partitionsWithoutTopicIds = 0;

  constructor(
    /** An empty list to add to (the handler lends the one of its previous build). */
    wanted: WantedPartitions,
    /** The handler's build step (of what was added to `wanted`), which updates its session. */
    private readonly buildWith: (topicNames: Map<string, string>, canUseTopicIds: boolean) => FetchRequestData,
  ) {
    this.#wanted = wanted;
  }

  add(topicPartition: TopicPartition, data: PartitionFetchData): this {
    const { topic, partition } = topicPartition;
    return this.addEntry(tpKey(topic, partition), { topic, partition, data });
  }

  /**
   * Adds a partition by its tpKey (`key`), as an entry the caller may hand in
   * again while the partition's fetch data stays the same: the session then
   * sees the same object and compares nothing (see samePartitionFetchData).
   */
  addEntry(key: string, entry: SessionPartition): this {
    if (this.#wanted === undefined) throw new Error("FetchRequestBuilder already built");
    this.#wanted.add(key, entry);
    const topicId = entry.data.topicId;
    if (topicId === ZERO_TOPIC_ID) this.#partitionsWithoutTopicIds++;
    else if (!this.#topicNames.has(topicId)) this.#topicNames.set(topicId, entry.topic);
    return this;
  }

  build(): FetchRequestData {
    const wanted = this.#wanted;
    if (wanted === undefined) throw new Error("FetchRequestBuilder already built");
    this.#wanted = undefined;
    return this.buildWith(this.#topicNames, this.#partitionsWithoutTopicIds === 0);
  }
}

/**
 * The partitions a builder was given, in order, keys and entries side by
 * side (a key may come twice). The first `count` slots are the list: a
 * cleared list keeps its slots, so refilling it to the same length
 * allocates nothing.
 */
export class WantedPartitions {
  readonly keys: string[] = [];
  readonly entries: SessionPartition[] = [];
  count = 0;

  add(key: string, entry: SessionPartition): void {
    this.keys[this.count] = key;
    this.entries[this.count] = entry;
    this.count++;
  }

  clear(): void {
    this.count = 0;
  }

  /** By key, in order of first appearance, each with its last entry (Kafka's LinkedHashMap of the builder). */
  asMap(): Map<string, SessionPartition> {
    const map = new Map<string, SessionPartition>();
    for (let i = 0; i < this.count; i++) map.set(this.keys[i] as string, this.entries[i] as SessionPartition);
    return map;
  }
}
