import { defineApi, field, int8, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * FindCoordinator (10), v0-2 (none flexible; one key per request, the
 * batched form is v4+). KafkaJS 2.2.4 implements v0-2
 * (src/protocol/requests/findCoordinator); librdkafka 2.0.2 asks 0-2
 * (rdkafka_request.c rd_kafka_FindCoordinatorRequest) and needs v0 in the
 * range for its BrokerGroupCoordinator feature (rdkafka_feature.c).
 */
const FindCoordinatorRequest = struct("FindCoordinatorRequest", {
  key: field(string, "0-3"),
  keyType: field(int8, "1+"),
});

const FindCoordinatorResponse = struct("FindCoordinatorResponse", {
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
  errorCode: field(int16, "0-3"),
  errorMessage: nullableField(string, "1-3", "1-3", { ignorable: true }),
  nodeId: field(int32, "0-3"),
  host: field(string, "0-3"),
  port: field(int32, "0-3"),
});

export const FindCoordinatorApi = defineApi({
  key: 10,
  name: "FindCoordinator",
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 3,
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
});
export type FindCoordinatorRequest = ReturnType<typeof FindCoordinatorRequest.defaults>;
export type FindCoordinatorResponse = ReturnType<typeof FindCoordinatorResponse.defaults>;
