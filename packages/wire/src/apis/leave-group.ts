import { array, defineApi, field, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * LeaveGroup (13), v0-3 (none flexible). KafkaJS 2.2.4 implements v0-3
 * (src/protocol/requests/leaveGroup); librdkafka 2.0.2 asks 0-1
 * (rdkafka_request.c rd_kafka_LeaveGroupRequest). v0-2 name one member;
 * v3 is the batch form.
 */
const LeaveGroupRequest = struct("LeaveGroupRequest", {
  groupId: field(string, "0+"),
  memberId: field(string, "0-2"),
  members: field(
    array(struct("MemberIdentity", { memberId: field(string, "3+"), groupInstanceId: nullableField(string, "3+", "3+") })),
    "3+",
  ),
});

const LeaveGroupResponse = struct("LeaveGroupResponse", {
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
  errorCode: field(int16, "0+"),
  members: field(
    array(
      struct("MemberResponse", {
        memberId: field(string, "3+"),
        groupInstanceId: nullableField(string, "3+", "3+"),
        errorCode: field(int16, "3+"),
      }),
    ),
    "3+",
  ),
});

export const LeaveGroupApi = defineApi({
  key: 13,
  name: "LeaveGroup",
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 4,
  request: LeaveGroupRequest,
  response: LeaveGroupResponse,
});
export type LeaveGroupRequest = ReturnType<typeof LeaveGroupRequest.defaults>;
export type LeaveGroupResponse = ReturnType<typeof LeaveGroupResponse.defaults>;
