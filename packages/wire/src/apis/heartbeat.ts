import { defineApi, field, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * Heartbeat (12), v0-3 (none flexible). KafkaJS 2.2.4 implements v0-3
 * (src/protocol/requests/heartbeat); librdkafka 2.0.2 asks 0-3
 * (rdkafka_request.c rd_kafka_HeartbeatRequest).
 */
const HeartbeatRequest = struct("HeartbeatRequest", {
  groupId: field(string, "0+"),
  generationId: field(int32, "0+"),
  memberId: field(string, "0+"),
  groupInstanceId: nullableField(string, "3+", "3+"),
});

const HeartbeatResponse = struct("HeartbeatResponse", {
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
  errorCode: field(int16, "0+"),
});

export const HeartbeatApi = defineApi({
  key: 12,
  name: "Heartbeat",
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 4,
  request: HeartbeatRequest,
  response: HeartbeatResponse,
});
export type HeartbeatRequest = ReturnType<typeof HeartbeatRequest.defaults>;
export type HeartbeatResponse = ReturnType<typeof HeartbeatResponse.defaults>;
