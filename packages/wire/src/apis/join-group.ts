import { array, bytes, defineApi, field, int16, int32, nullableField, string, struct } from "../schema/index.js";

/**
 * JoinGroup (11), v0-5 (none flexible). KafkaJS 2.2.4 implements v0-5
 * (src/protocol/requests/joinGroup); librdkafka 2.0.2 asks 0-5
 * (rdkafka_request.c rd_kafka_JoinGroupRequest). From v4 a member without
 * an id gets MEMBER_ID_REQUIRED and joins again with the id it was given.
 */
const JoinGroupRequest = struct("JoinGroupRequest", {
  groupId: field(string, "0+"),
  sessionTimeoutMs: field(int32, "0+"),
  rebalanceTimeoutMs: field(int32, "1+", { default: -1, ignorable: true }),
  memberId: field(string, "0+"),
  groupInstanceId: nullableField(string, "5+", "5+"),
  protocolType: field(string, "0+"),
  protocols: field(array(struct("JoinGroupRequestProtocol", { name: field(string, "0+"), metadata: field(bytes, "0+") })), "0+"),
});

const JoinGroupResponseMember = struct("JoinGroupResponseMember", {
  memberId: field(string, "0+"),
  groupInstanceId: nullableField(string, "5+", "5+", { ignorable: true }),
  metadata: field(bytes, "0+"),
});

const JoinGroupResponse = struct("JoinGroupResponse", {
  throttleTimeMs: field(int32, "2+", { ignorable: true }),
  errorCode: field(int16, "0+"),
  generationId: field(int32, "0+", { default: -1 }),
  protocolName: field(string, "0+"),
  leader: field(string, "0+"),
  memberId: field(string, "0+"),
  members: field(array(JoinGroupResponseMember), "0+"),
});

export const JoinGroupApi = defineApi({
  key: 11,
  name: "JoinGroup",
  minVersion: 0,
  maxVersion: 5,
  flexibleFrom: 6,
  request: JoinGroupRequest,
  response: JoinGroupResponse,
});
export type JoinGroupRequest = ReturnType<typeof JoinGroupRequest.defaults>;
export type JoinGroupResponse = ReturnType<typeof JoinGroupResponse.defaults>;
