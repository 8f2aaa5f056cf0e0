import { array, defineApi, field, int8, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * FindCoordinator (10), v0-4; flexible from v3. KafkaJS 2.2.4 implements
 * v0-2 (src/protocol/requests/findCoordinator); librdkafka 2.0.2 asks 0-2
 * (rdkafka_request.c rd_kafka_FindCoordinatorRequest) and needs v0 in the
 * range for its BrokerGroupCoordinator feature (rdkafka_feature.c);
 * @platformatic/kafka 1.35.0 implements v4-6
 * (dist/apis/metadata/find-coordinator-v<N>.js), so it sends v4 here.
 * v0-3 name one key and answer one coordinator; v4 is the batched form
 * (KIP-699): CoordinatorKeys in, one Coordinator per key out, each with its
 * own error.
 */
const FindCoordinatorRequest = struct("FindCoordinatorRequest", {
  key: field(string, "0-3"),
  keyType: field(int8, "1+"),
  coordinatorKeys: field(array(string), "4+"),
});

const Coordinator = struct("Coordinator", {
  key: field(string, "4+"),
  nodeId: field(int32, "4+"),
  host: field(string, "4+"),
  port: field(int32, "4+"),
  errorCode: field(int16, "4+"),
  errorMessage: nullableField(string, "4+", "4+", { ignorable: true }),
});

const FindCoordinatorResponse = struct("FindCoordinatorResponse", {
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
  errorCode: field(int16, "0-3"),
  errorMessage: nullableField(string, "1-3", "1-3", { ignorable: true }),
  nodeId: field(int32, "0-3"),
  host: field(string, "0-3"),
  port: field(int32, "0-3"),
  coordinators: field(array(Coordinator), "4+"),
});

export const FindCoordinatorApi = defineApi({
  key: 10,
  name: "FindCoordinator",
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 3,
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
});
export type FindCoordinatorRequest = ReturnType<typeof FindCoordinatorRequest.defaults>;
export type FindCoordinatorResponse = ReturnType<typeof FindCoordinatorResponse.defaults>;
export type FindCoordinatorResponseCoordinator = ReturnType<typeof Coordinator.defaults>;

/**
 * A v4+ answer: one entry per key. The single-key fields of v0-3 stay at their schema defaults, the only values v4
 * can leave unwritten.
 */
export function batchedFindCoordinatorResponse(
  coordinators: FindCoordinatorResponseCoordinator[],
  throttleTimeMs = 0,
): FindCoordinatorResponse {
  return { ...FindCoordinatorResponse.defaults(), throttleTimeMs, coordinators };
}
