import { batchedFindCoordinatorResponse } from "../apis/find-coordinator.js";
import type { ApiName, WireResponseOf } from "../apis/index.js";
import { AUTHORIZED_OPERATIONS_OMITTED } from "../apis/metadata.js";
import type { WireRequest } from "../codec.js";

/** Any API's response body (the union over the APIs). */
export type WireResponseBody = { [N in ApiName]: WireResponseOf<N> }[ApiName];

/**
 * The response Kafka gives when a whole request fails with one error
 * (`AbstractRequest.getErrorResponse` of each request class): the error on
 * every topic and partition the request names, or at the top level where the
 * response has one, and "nothing" values (-1 offsets, node -1) elsewhere.
 * The batched forms answer per entry: FindCoordinator v4+ one coordinator
 * per key, OffsetFetch v8+ one group per group asked for. The caller encodes
 * it at the request's version; fields a version lacks are left out by the
 * encoder (so they stay at their defaults where they are not ignorable).
 */
export function errorResponseFor(request: WireRequest, errorCode: number, errorMessage: string | null = null): WireResponseBody {
  switch (request.api) {
    case "Produce":
      return {
        throttleTimeMs: 0,
        responses: request.body.topicData.map((t) => ({
          name: t.name,
          partitionResponses: t.partitionData.map((p) => ({
            index: p.index,
            errorCode,
            baseOffset: -1n,
            logAppendTimeMs: -1n,
            logStartOffset: -1n,
          })),
        })),
      };
    case "Fetch":
      return {
        throttleTimeMs: 0,
        errorCode,
        sessionId: 0,
        responses: request.body.topics.map((t) => ({
          topic: t.topic,
          topicId: t.topicId,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partition,
            errorCode,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: -1n,
            abortedTransactions: null,
            divergingEpoch: { epoch: -1, endOffset: -1n },
            currentLeader: { leaderId: -1, leaderEpoch: -1 },
            snapshotId: { endOffset: -1n, epoch: -1 },
            preferredReadReplica: -1,
            records: new Uint8Array(0),
          })),
        })),
      };
    case "ListOffsets":
      return {
        throttleTimeMs: 0,
        topics: request.body.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            errorCode,
            oldStyleOffsets: [],
            timestamp: -1n,
            offset: -1n,
            leaderEpoch: -1,
          })),
        })),
      };
    case "Metadata":
      return {
        throttleTimeMs: 0,
        brokers: [],
        clusterId: null,
        controllerId: -1,
        // A topic asked for by id (v10+: a null name) is answered with name "", as Kafka does.
        topics: (request.body.topics ?? []).map((t) => ({
          errorCode,
          name: t.name ?? "",
          topicId: t.topicId,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        })),
        clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      };
    case "OffsetCommit":
      return {
        throttleTimeMs: 0,
        topics: request.body.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
        })),
      };
    case "OffsetFetch":
      // From v8 each group asked for carries it (no topics); v2-7 the response's own; below, each partition asked for.
      return {
        throttleTimeMs: 0,
        errorCode,
        groups: request.header.apiVersion >= 8 ? request.body.groups.map((g) => ({ groupId: g.groupId, topics: [], errorCode })) : [],
        topics:
          request.header.apiVersion >= 2
            ? []
            : (request.body.topics ?? []).map((t) => ({
                name: t.name,
                partitions: t.partitionIndexes.map((partitionIndex) => ({
                  partitionIndex,
                  committedOffset: -1n,
                  committedLeaderEpoch: -1,
                  metadata: null,
                  errorCode,
                })),
              })),
      };
    case "FindCoordinator":
      // v0-3 answer for the one key; v4+ one coordinator per key (the single-key fields stay at their defaults).
      if (request.header.apiVersion < 4)
        return { throttleTimeMs: 0, errorCode, errorMessage, nodeId: -1, host: "", port: -1, coordinators: [] };
      return batchedFindCoordinatorResponse(
        request.body.coordinatorKeys.map((key) => ({ key, nodeId: -1, host: "", port: -1, errorCode, errorMessage })),
      );
    case "JoinGroup":
      return { throttleTimeMs: 0, errorCode, generationId: -1, protocolName: "", leader: "", memberId: "", members: [] };
    case "Heartbeat":
      return { throttleTimeMs: 0, errorCode };
    case "LeaveGroup":
      return { throttleTimeMs: 0, errorCode, members: [] };
    case "SyncGroup":
      return { throttleTimeMs: 0, errorCode, assignment: new Uint8Array(0) };
    case "ApiVersions":
      return {
        errorCode,
        apiKeys: [],
        throttleTimeMs: 0,
        supportedFeatures: [],
        finalizedFeaturesEpoch: -1n,
        finalizedFeatures: [],
        zkMigrationReady: false,
      };
    case "CreateTopics":
      return { throttleTimeMs: 0, topics: request.body.topics.map((t) => ({ name: t.name, errorCode, errorMessage })) };
    case "InitProducerId":
      return { throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 };
    case "ConsumerGroupHeartbeat":
      return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: -1, heartbeatIntervalMs: 0, assignment: null };
  }
}
