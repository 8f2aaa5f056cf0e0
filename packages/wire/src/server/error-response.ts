import type { ApiName, WireResponseOf } from "../apis/index.js";
import type { WireRequest } from "../codec.js";

/** Any API's response body (the union over the APIs). */
export type WireResponseBody = { [N in ApiName]: WireResponseOf<N> }[ApiName];

/**
 * The response Kafka gives when a whole request fails with one error
 * (`AbstractRequest.getErrorResponse` of each request class): the error on
 * every topic and partition the request names, or at the top level where the
 * response has one, and "nothing" values (-1 offsets, node -1) elsewhere.
 * The caller encodes it at the request's version; fields a version lacks are
 * left out by the encoder.
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
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partition,
            errorCode,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: -1n,
            abortedTransactions: null,
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
          })),
        })),
      };
    case "Metadata":
      return {
        throttleTimeMs: 0,
        brokers: [],
        clusterId: null,
        controllerId: -1,
        topics: (request.body.topics ?? []).map((t) => ({ errorCode, name: t.name, isInternal: false, partitions: [] })),
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
      // From v2 the error is the response's own; below, each partition asked for carries it.
      return {
        throttleTimeMs: 0,
        errorCode,
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
      return { throttleTimeMs: 0, errorCode, errorMessage, nodeId: -1, host: "", port: -1 };
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
