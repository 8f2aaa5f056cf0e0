import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  HeartbeatTopicPartitions,
  InitProducerIdRequest,
  InitProducerIdResponse,
} from "@kcsim/protocol";
import { batchedFindCoordinatorResponse } from "../apis/find-coordinator.js";
import type { WireRequestOf, WireResponseOf } from "../apis/index.js";
import type { RequestHeader } from "../header.js";
import { WireError } from "../wire-error.js";
import { kcsimHeader, toNumber, type WireMappingContext } from "./mapping-context.js";

/** FindCoordinator v0-3 name one key, v4+ a batch (kcsim's form). v0 has no key type: a group. */
export function findCoordinatorToKcsim(header: RequestHeader, body: WireRequestOf<"FindCoordinator">): FindCoordinatorRequest {
  const coordinatorKeys = header.apiVersion >= 4 ? [...body.coordinatorKeys] : [body.key];
  return { type: "FindCoordinatorRequest", ...kcsimHeader(header), keyType: body.keyType, coordinatorKeys };
}

/**
 * The coordinator's actor id becomes the listener the server gives for its node; on error Kafka answers node -1,
 * host "", port -1. v4+ answer every key apart; v0-3 the one key's.
 */
export function findCoordinatorToWire(
  response: FindCoordinatorResponse,
  context: WireMappingContext,
  version = 3,
): WireResponseOf<"FindCoordinator"> {
  const coordinators = response.coordinators.map((coordinator) => {
    const endpoint = coordinator.errorCode === 0 ? context.endpointOf(coordinator.nodeId) : undefined;
    if (coordinator.errorCode === 0 && endpoint === undefined)
      throw new WireError("unencodable", `no listener for node ${coordinator.nodeId}`);
    return {
      key: coordinator.key,
      nodeId: endpoint ? coordinator.nodeId : -1,
      host: endpoint?.host ?? "",
      port: endpoint?.port ?? -1,
      errorCode: coordinator.errorCode,
      errorMessage: coordinator.errorMessage,
    };
  });
  if (version >= 4) return batchedFindCoordinatorResponse(coordinators, response.throttleTimeMs);
  const coordinator = coordinators[0];
  if (coordinator === undefined) throw new WireError("unencodable", "a FindCoordinator response without a coordinator");
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: coordinator.errorCode,
    errorMessage: coordinator.errorMessage,
    nodeId: coordinator.nodeId,
    host: coordinator.host,
    port: coordinator.port,
    coordinators: [],
  };
}

export function initProducerIdToKcsim(header: RequestHeader, body: WireRequestOf<"InitProducerId">): InitProducerIdRequest {
  return {
    type: "InitProducerIdRequest",
    ...kcsimHeader(header),
    transactionalId: body.transactionalId,
    transactionTimeoutMs: body.transactionTimeoutMs,
    producerId: toNumber(body.producerId, "producer id"),
    producerEpoch: body.producerEpoch,
  };
}

export function initProducerIdToWire(response: InitProducerIdResponse): WireResponseOf<"InitProducerId"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: response.errorCode,
    producerId: BigInt(response.producerId),
    producerEpoch: response.producerEpoch,
  };
}

const identity = (id: string) => id;

function mapTopics(topics: readonly HeartbeatTopicPartitions[], map: (id: string) => string): HeartbeatTopicPartitions[] {
  return topics.map((t) => ({ topicId: map(t.topicId), partitions: [...t.partitions] }));
}

/** Topic ids go through the context's Uuid mapping (kcsim's generated ids are not always valid Kafka Uuids). */
export function consumerGroupHeartbeatToKcsim(
  header: RequestHeader,
  body: WireRequestOf<"ConsumerGroupHeartbeat">,
  context: Pick<WireMappingContext, "kcsimTopicIdOf">,
): ConsumerGroupHeartbeatRequest {
  const toKcsim = context.kcsimTopicIdOf?.bind(context) ?? identity;
  return {
    type: "ConsumerGroupHeartbeatRequest",
    ...kcsimHeader(header),
    groupId: body.groupId,
    memberId: body.memberId,
    memberEpoch: body.memberEpoch,
    instanceId: body.instanceId,
    rackId: body.rackId,
    rebalanceTimeoutMs: body.rebalanceTimeoutMs,
    subscribedTopicNames: body.subscribedTopicNames,
    subscribedTopicRegex: body.subscribedTopicRegex,
    serverAssignor: body.serverAssignor,
    topicPartitions: body.topicPartitions === null ? null : mapTopics(body.topicPartitions, toKcsim),
  };
}

export function consumerGroupHeartbeatToWire(
  response: ConsumerGroupHeartbeatResponse,
  context: Pick<WireMappingContext, "kafkaTopicIdOf">,
): WireResponseOf<"ConsumerGroupHeartbeat"> {
  const toKafka = context.kafkaTopicIdOf?.bind(context) ?? identity;
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: response.errorCode,
    errorMessage: response.errorMessage,
    memberId: response.memberId,
    memberEpoch: response.memberEpoch,
    heartbeatIntervalMs: response.heartbeatIntervalMs,
    assignment: response.assignment === null ? null : { topicPartitions: mapTopics(response.assignment.topicPartitions, toKafka) },
  };
}
