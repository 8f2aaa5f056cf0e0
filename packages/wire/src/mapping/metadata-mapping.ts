import { ErrorCode, type MetadataResponse } from "@kcsim/protocol";
import type { WireResponseOf } from "../apis/index.js";
import { AUTHORIZED_OPERATIONS_OMITTED } from "../apis/metadata.js";
import { ZERO_UUID } from "../schema/index.js";
import { WireError } from "../wire-error.js";
import type { WireMappingContext } from "./mapping-context.js";

/**
 * A kcsim MetadataResponse as the wire's: brokers at the listeners the
 * server gives for them (kcsim's host is an actor id), topic ids (v10+) as
 * the Kafka Uuids the context gives for kcsim's, leader epochs (v7+) as
 * they are, offline replicas empty, authorized operations not asked for
 * (kcsim has no ACLs: Kafka's "omitted", Integer.MIN_VALUE). A version
 * that lacks a field does not write it. The cluster id is the server's.
 * The endpoint may also build the answer itself (topic auto-creation,
 * num.partitions): the request side is not mapped, its topics are looked
 * up by name.
 */
export function metadataToWire(
  response: MetadataResponse,
  context: WireMappingContext,
  clusterId: string | null,
  version = 12,
): WireResponseOf<"Metadata"> {
  const kafkaTopicId = context.kafkaTopicIdOf?.bind(context) ?? ((id: string) => id);
  return {
    throttleTimeMs: response.throttleTimeMs,
    brokers: response.brokers.map((b) => {
      const endpoint = context.endpointOf(b.nodeId);
      if (endpoint === undefined) throw new WireError("unencodable", `no listener for node ${b.nodeId}`);
      return { nodeId: b.nodeId, host: endpoint.host, port: endpoint.port, rack: b.rack };
    }),
    clusterId,
    controllerId: response.controllerId,
    topics: response.topics.map((t) => ({
      errorCode: t.errorCode,
      // A topic asked for by an id nobody knows: its name is null from v12 (Kafka's MetadataResponse), its id the one asked.
      name: t.errorCode === ErrorCode.UNKNOWN_TOPIC_ID && version >= 12 ? null : t.name,
      // The zero Uuid for a topic asked for by a name nobody knows.
      topicId: t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION ? ZERO_UUID : kafkaTopicId(t.topicId),
      isInternal: t.isInternal,
      partitions: t.partitions.map((p) => ({
        errorCode: p.errorCode,
        partitionIndex: p.partitionIndex,
        leaderId: p.leaderId,
        leaderEpoch: p.leaderEpoch,
        replicaNodes: [...p.replicaNodes],
        isrNodes: [...p.isrNodes],
        offlineReplicas: [],
      })),
      topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    })),
    clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
}
