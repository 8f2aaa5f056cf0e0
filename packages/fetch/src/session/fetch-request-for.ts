import { type FetchPartition, type FetchRequest, IsolationLevel } from "@kcsim/protocol";
import type { FetchRequestData, NamedTopicIdPartition, SessionPartition } from "./fetch-request-data.js";
import { FETCH_API_VERSION, FIRST_TOPIC_ID_FETCH_VERSION } from "./fetch-versions.js";

/** The request-level fields a fetcher supplies besides the session's data. */
export interface FetchRequestParams {
  readonly correlationId: number;
  readonly clientId: string;
  /** -1 for consumers (CONSUMER_REPLICA_ID), the broker id for followers. */
  readonly replicaId: number;
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly isolationLevel?: number;
  readonly rackId?: string;
  readonly apiVersion?: number;
}

/** Forgotten partitions grouped by topic name, in order of first appearance (most requests forget nothing: then this is not called). */
function forgottenTopicsOf(lists: readonly (readonly NamedTopicIdPartition[])[]): FetchRequest["forgottenTopicsData"] {
  const forgotten = new Map<string, { topicId: string; partitions: number[] }>();
  for (const tps of lists) {
    for (const tp of tps) {
      let entry = forgotten.get(tp.topic);
      if (entry === undefined) {
        entry = { topicId: tp.topicId, partitions: [] };
        forgotten.set(tp.topic, entry);
      }
      entry.partitions.push(tp.partition);
    }
  }
  return [...forgotten.values()];
}

/**
 * The Fetch request for a built session request (Kafka's
 * `FetchRequest.Builder.build`): partitions to send in order, grouped under a
 * topic only while consecutive; forgotten topics grouped by topic name,
 * removed partitions first, then (v13+) the replaced ones under their old id.
 */
export function fetchRequestFor(data: FetchRequestData, params: FetchRequestParams): FetchRequest {
  const apiVersion = params.apiVersion ?? FETCH_API_VERSION;
  const topics: { topicId: string; partitions: FetchPartition[] }[] = [];
  let currentTopic: string | undefined;
  let current: FetchPartition[] = [];
  const toSend = data.toSend;
  for (let i = 0; i < toSend.length; i++) {
    const { topic, partition, data: p } = toSend[i] as SessionPartition;
    if (currentTopic === undefined || currentTopic !== topic) {
      currentTopic = topic;
      current = [];
      topics.push({ topicId: p.topicId, partitions: current });
    }
    current.push({
      partition,
      currentLeaderEpoch: p.currentLeaderEpoch,
      fetchOffset: p.fetchOffset,
      lastFetchedEpoch: p.lastFetchedEpoch,
      logStartOffset: p.logStartOffset,
      partitionMaxBytes: p.partitionMaxBytes,
    });
  }
  // Before v13 the replaced partition keeps its name, so forgetting it would drop the re-sent one.
  const replaced = apiVersion >= FIRST_TOPIC_ID_FETCH_VERSION ? data.toReplace : [];
  return {
    type: "FetchRequest",
    correlationId: params.correlationId,
    apiVersion,
    clientId: params.clientId,
    replicaId: params.replicaId,
    maxWaitMs: params.maxWaitMs,
    minBytes: params.minBytes,
    maxBytes: params.maxBytes,
    isolationLevel: params.isolationLevel ?? IsolationLevel.READ_UNCOMMITTED,
    sessionId: data.metadata.sessionId,
    sessionEpoch: data.metadata.epoch,
    topics,
    forgottenTopicsData: data.toForget.length === 0 && replaced.length === 0 ? [] : forgottenTopicsOf([data.toForget, replaced]),
    rackId: params.rackId ?? "",
  };
}
