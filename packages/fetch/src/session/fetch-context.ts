import { ErrorCode, type FetchResponse, type Micros } from "@kcsim/protocol";
import { CachedPartition } from "./cached-partition.js";
import { INVALID_SESSION_ID, nextEpoch } from "./fetch-metadata.js";
import { fetchResponseFor } from "./fetch-response-for.js";
import type { FetchSession } from "./fetch-session.js";
import type { FetchSessionCache } from "./fetch-session-cache.js";
import { fetchResponseBytes } from "./fetch-wire-size.js";
import { type PartitionReadResult, readBytesOf } from "./partition-read-result.js";
import { type FetchTarget, topicIdPartitionKey } from "./topic-id-partition.js";

/**
 * How the broker serves one Fetch request (Kafka's `FetchContext`), made by
 * `FetchManager.newContext`. The caller reads `partitions()` from its logs in
 * that order, then turns the reads into the response with
 * `updateAndGenerateResponse`, which also updates (or, for a full request,
 * creates) the session. Time is passed in; nothing here reads a clock.
 */
export interface FetchContext {
  readonly kind: "session-error" | "sessionless" | "full" | "incremental";
  /** The partitions to read, in order (Kafka's `foreachPartition`). */
  partitions(): FetchTarget[];
  /** The fetch offset this context holds for a partition, if it holds the partition. */
  fetchOffset(topicId: string, partition: number): number | undefined;
  /** The wire size of the response these reads would produce, without updating anything (quota accounting). */
  responseBytes(reads: readonly PartitionReadResult[]): number;
  /** The response for these reads (given in `partitions()` order); updates or creates the session. */
  updateAndGenerateResponse(reads: readonly PartitionReadResult[], now: Micros): FetchResponse;
  /** The empty response sent instead when the fetcher is throttled; leaves the session as it is. */
  throttledResponse(throttleTimeMs: number): FetchResponse;
}

/** A request that hit a session error: empty response with the error and session id 0. */
export class SessionErrorContext implements FetchContext {
  readonly kind = "session-error";

  constructor(
    readonly correlationId: number,
    readonly errorCode: number,
  ) {}

  partitions(): FetchTarget[] {
    return [];
  }

  fetchOffset(): number | undefined {
    return undefined;
  }

  responseBytes(): number {
    return fetchResponseBytes(this.updateAndGenerateResponse());
  }

  // Because of the session error, we do not know which partitions the request meant.
  updateAndGenerateResponse(): FetchResponse {
    return fetchResponseFor(this.correlationId, this.errorCode, INVALID_SESSION_ID, []);
  }

  throttledResponse(throttleTimeMs: number): FetchResponse {
    return fetchResponseFor(this.correlationId, ErrorCode.NONE, INVALID_SESSION_ID, [], throttleTimeMs);
  }
}

/** Shared by the two contexts that serve exactly the partitions of the request. */
abstract class RequestPartitionsContext {
  constructor(
    readonly correlationId: number,
    /** The request's partitions by `topicIdPartitionKey`, in request order. */
    protected readonly fetchData: ReadonlyMap<string, FetchTarget>,
  ) {}

  partitions(): FetchTarget[] {
    return [...this.fetchData.values()];
  }

  fetchOffset(topicId: string, partition: number): number | undefined {
    return this.fetchData.get(topicIdPartitionKey(topicId, partition))?.fetchOffset;
  }

  responseBytes(reads: readonly PartitionReadResult[]): number {
    return fetchResponseBytes(fetchResponseFor(this.correlationId, ErrorCode.NONE, INVALID_SESSION_ID, reads));
  }

  throttledResponse(throttleTimeMs: number): FetchResponse {
    return fetchResponseFor(this.correlationId, ErrorCode.NONE, INVALID_SESSION_ID, [], throttleTimeMs);
  }
}

/** A sessionless request (epoch FINAL, or an incremental request that emptied its session). */
export class SessionlessFetchContext extends RequestPartitionsContext implements FetchContext {
  readonly kind = "sessionless";

  updateAndGenerateResponse(reads: readonly PartitionReadResult[]): FetchResponse {
    return fetchResponseFor(this.correlationId, ErrorCode.NONE, INVALID_SESSION_ID, reads);
  }
}

/** A full request (epoch INITIAL): answers every partition, then tries to create a session from the response. */
export class FullFetchContext extends RequestPartitionsContext implements FetchContext {
  readonly kind = "full";

  constructor(
    correlationId: number,
    fetchData: ReadonlyMap<string, FetchTarget>,
    private readonly cache: FetchSessionCache,
    private readonly usesTopicIds: boolean,
    private readonly isFromFollower: boolean,
  ) {
    super(correlationId, fetchData);
  }

  updateAndGenerateResponse(reads: readonly PartitionReadResult[], now: Micros): FetchResponse {
    const createPartitions = () => {
      const cached = new Map<string, CachedPartition>();
      for (const read of reads) {
        const key = topicIdPartitionKey(read.topicId, read.data.partitionIndex);
        const target = this.fetchData.get(key);
        if (target === undefined) throw new RangeError(`read result for ${key}, which the request did not ask for`);
        cached.set(key, CachedPartition.fromResponse(target, read));
      }
      return cached;
    };
    const sessionId = this.cache
      .nextShard()
      .maybeCreateSession(now, this.isFromFollower, reads.length, this.usesTopicIds, createPartitions);
    return fetchResponseFor(this.correlationId, ErrorCode.NONE, sessionId, reads);
  }
}

/**
 * An incremental request of a live session. Only partitions with something
 * to say go into the response; those that returned records move to the end
 * of the session, so the next read starts with the others.
 */
export class IncrementalFetchContext implements FetchContext {
  readonly kind = "incremental";

  constructor(
    readonly correlationId: number,
    /** The epoch the request carried; the session moved to the next one when this context was made. */
    private readonly requestEpoch: number,
    readonly session: FetchSession,
  ) {}

  partitions(): FetchTarget[] {
    return Array.from(this.session.partitions(), (cached) => cached.target());
  }

  fetchOffset(topicId: string, partition: number): number | undefined {
    return this.session.find(topicId, partition)?.fetchOffset;
  }

  responseBytes(reads: readonly PartitionReadResult[]): number {
    if (!this.#epochStillCurrent()) return fetchResponseBytes(this.#epochErrorResponse(0));
    const selected = reads.filter((read) => this.#cachedFor(read).maybeUpdateResponseData(read, false));
    return fetchResponseBytes(fetchResponseFor(this.correlationId, ErrorCode.NONE, this.session.id, selected));
  }

  updateAndGenerateResponse(reads: readonly PartitionReadResult[]): FetchResponse {
    // A duplicate of the request may have advanced the epoch since this context was made.
    if (!this.#epochStillCurrent()) return this.#epochErrorResponse(0);
    const selected: PartitionReadResult[] = [];
    for (const read of reads) {
      const cached = this.#cachedFor(read);
      if (!cached.maybeUpdateResponseData(read, true)) continue;
      selected.push(read);
      if (readBytesOf(read) > 0) this.session.moveToEnd(cached);
    }
    return fetchResponseFor(this.correlationId, ErrorCode.NONE, this.session.id, selected);
  }

  throttledResponse(throttleTimeMs: number): FetchResponse {
    if (!this.#epochStillCurrent()) return this.#epochErrorResponse(throttleTimeMs);
    return fetchResponseFor(this.correlationId, ErrorCode.NONE, this.session.id, [], throttleTimeMs);
  }

  #epochStillCurrent(): boolean {
    return this.session.epoch === nextEpoch(this.requestEpoch);
  }

  #epochErrorResponse(throttleTimeMs: number): FetchResponse {
    return fetchResponseFor(this.correlationId, ErrorCode.INVALID_FETCH_SESSION_EPOCH, this.session.id, [], throttleTimeMs);
  }

  #cachedFor(read: PartitionReadResult): CachedPartition {
    const known = read.cached;
    if (
      known !== undefined &&
      known.partition === read.data.partitionIndex &&
      known.topicId === read.topicId &&
      this.session.holds(known)
    ) {
      return known;
    }
    const cached = this.session.find(read.topicId, read.data.partitionIndex);
    if (cached === undefined) {
      throw new RangeError(
        `read result for ${topicIdPartitionKey(read.topicId, read.data.partitionIndex)}, which is not in session ${this.session.id}`,
      );
    }
    return cached;
  }
}
