import { array, bytes, defineApi, field, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * SyncGroup (14), v0-3 (none flexible). KafkaJS 2.2.4 implements v0-3
 * (src/protocol/requests/syncGroup); librdkafka 2.0.2 asks 0-3
 * (rdkafka_request.c rd_kafka_SyncGroupRequest).
 */
const SyncGroupRequest = struct("SyncGroupRequest", {
  groupId: field(string, "0+"),
  generationId: field(int32, "0+"),
  memberId: field(string, "0+"),
  groupInstanceId: nullableField(string, "3+", "3+"),
  assignments: field(array(struct("SyncGroupRequestAssignment", { memberId: field(string, "0+"), assignment: field(bytes, "0+") })), "0+"),
});

const SyncGroupResponse = struct("SyncGroupResponse", {
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
  errorCode: field(int16, "0+"),
  assignment: field(bytes, "0+"),
});

export const SyncGroupApi = defineApi({
  key: 14,
  name: "SyncGroup",
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 4,
  request: SyncGroupRequest,
  response: SyncGroupResponse,
});
export type SyncGroupRequest = ReturnType<typeof SyncGroupRequest.defaults>;
export type SyncGroupResponse = ReturnType<typeof SyncGroupResponse.defaults>;
