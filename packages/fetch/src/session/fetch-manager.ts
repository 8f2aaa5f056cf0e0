import { ErrorCode, type FetchPartition, type FetchRequest, type Micros } from "@kcsim/protocol";
import {
  type FetchContext,
  FullFetchContext,
  IncrementalFetchContext,
  SessionErrorContext,
  SessionlessFetchContext,
} from "./fetch-context.js";
import { FINAL_EPOCH, INVALID_SESSION_ID, isFull, nextEpoch } from "./fetch-metadata.js";
import type { FetchSessionCache } from "./fetch-session-cache.js";
import { FIRST_TOPIC_ID_FETCH_VERSION } from "./fetch-versions.js";
import { type FetchTarget, type TopicIdPartition, topicIdPartitionKey } from "./topic-id-partition.js";

/** The request's partitions by key, in request order (a repeated partition keeps its first place, last data). */
function fetchDataOf(request: FetchRequest): Map<string, FetchTarget> {
  const data = new Map<string, FetchTarget>();
  // Indexed loops: a delivered message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
  const topics = request.topics;
  for (let t = 0; t < topics.length; t++) {
    const { topicId, partitions } = topics[t] as FetchRequest["topics"][number];
    for (let i = 0; i < partitions.length; i++) {
      const p = partitions[i] as FetchPartition;
      // Field by field, not by spreading: a spread copies through the runtime, and this runs for every partition of every fetch.
      const target: FetchTarget = {
        partition: p.partition,
        currentLeaderEpoch: p.currentLeaderEpoch,
        fetchOffset: p.fetchOffset,
        lastFetchedEpoch: p.lastFetchedEpoch,
        logStartOffset: p.logStartOffset,
        partitionMaxBytes: p.partitionMaxBytes,
        topicId,
      };
      data.set(topicIdPartitionKey(topicId, p.partition), target);
    }
  }
  return data;
}

function forgottenOf(request: FetchRequest): TopicIdPartition[] {
  const forgotten: TopicIdPartition[] = [];
  const topics = request.forgottenTopicsData;
  for (let t = 0; t < topics.length; t++) {
    const { topicId, partitions } = topics[t] as FetchRequest["forgottenTopicsData"][number];
    for (let i = 0; i < partitions.length; i++) forgotten.push({ topicId, partition: partitions[i] as number });
  }
  return forgotten;
}

/**
 * The broker's entry point for fetch sessions (Kafka's `FetchManager`):
 * decides how a Fetch request is served and applies its session changes.
 */
export class FetchManager {
  constructor(readonly cache: FetchSessionCache) {}

  /**
   * - Full request (epoch 0 or -1): a session id other than 0 names a session
   *   to close, which is removed. Epoch -1 is served sessionless; epoch 0 is
   *   served in full and tries to create a session after the read.
   * - Incremental request: unknown id -> FETCH_SESSION_ID_NOT_FOUND; epoch
   *   not the session's -> INVALID_FETCH_SESSION_EPOCH; topic-id usage not
   *   the session's -> FETCH_SESSION_TOPIC_ID_ERROR; else the added, altered
   *   and forgotten partitions are applied. A session left empty is removed
   *   and the request served sessionless; otherwise the session is touched
   *   and its epoch advances.
   */
  newContext(request: FetchRequest, now: Micros): FetchContext {
    const metadata = { sessionId: request.sessionId, epoch: request.sessionEpoch };
    const isFromFollower = request.replicaId >= 0;
    if (isFull(metadata)) {
      // Any session named by a full request is closed.
      if (metadata.sessionId !== INVALID_SESSION_ID) this.cache.remove(metadata.sessionId);
      if (metadata.epoch === FINAL_EPOCH) return new SessionlessFetchContext(request.correlationId, fetchDataOf(request));
      const usesTopicIds = request.apiVersion >= FIRST_TOPIC_ID_FETCH_VERSION;
      return new FullFetchContext(request.correlationId, fetchDataOf(request), this.cache, usesTopicIds, isFromFollower);
    }
    const shard = this.cache.shardFor(metadata.sessionId);
    const session = shard?.get(metadata.sessionId);
    if (shard === undefined || session === undefined) {
      return new SessionErrorContext(request.correlationId, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    }
    if (session.epoch !== metadata.epoch) return new SessionErrorContext(request.correlationId, ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    const requestUsesTopicIds = request.apiVersion >= FIRST_TOPIC_ID_FETCH_VERSION;
    if (session.usesTopicIds !== requestUsesTopicIds) {
      return new SessionErrorContext(request.correlationId, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
    }
    const fetchData = fetchDataOf(request);
    session.update(fetchData, forgottenOf(request));
    if (session.isEmpty()) {
      shard.remove(session);
      return new SessionlessFetchContext(request.correlationId, fetchData);
    }
    shard.touch(session, now);
    session.epoch = nextEpoch(session.epoch);
    return new IncrementalFetchContext(request.correlationId, metadata.epoch, session);
  }
}
