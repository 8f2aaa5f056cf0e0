import { describe, expect, test } from "vitest";
import { decodeRequest, decodeResponse, encodeRequest, encodeResponse } from "../src/index.js";
import { hex } from "./support/fixtures.js";

// Golden bytes written by hand, field by field, from Kafka's
// ConsumerGroupHeartbeat{Request,Response}.json (all versions flexible: compact
// strings and arrays, tagged-field sections), independent of any client. The
// bytes @platformatic/kafka 1.35.0 sends (v0 and v1) are checked in
// golden-bytes.test.ts, its reading of these responses in platformatic-client.test.ts.
const TOPIC_ID = "AAECAwQFBgcICQoLDA0ODw"; // Uuid bytes 00 01 .. 0f

const requestV1 = [
  "0000003e", // size 62
  "0044 0001 0000002a 0006 636c69656e74 00", // header v2: key 68, v1, correlation 42, client id "client" (INT16 length), no tags
  "0267", // GroupId "g"
  "01", // MemberId ""
  "00000000", // MemberEpoch 0
  "00 00", // InstanceId, RackId null
  "000493e0", // RebalanceTimeoutMs 300000
  "02 0274", // SubscribedTopicNames ["t"]
  "0472652a", // SubscribedTopicRegex "re*" (v1)
  "00", // ServerAssignor null
  "02",
  "000102030405060708090a0b0c0d0e0f",
  "02 00000003",
  "00", // TopicPartitions [{TopicId, [3]}] + entry tags
  "00", // tags
].join("");

const responseV0 = [
  "00000034", // size 52
  "00000007 00", // header v1: correlation 7, no tags
  "00000000", // ThrottleTimeMs
  "0000", // ErrorCode
  "00", // ErrorMessage null
  "026d", // MemberId "m"
  "00000005", // MemberEpoch 5
  "00001388", // HeartbeatIntervalMs 5000
  "01", // Assignment present
  "02",
  "000102030405060708090a0b0c0d0e0f",
  "03 00000000 00000001",
  "00", // TopicPartitions [{TopicId, [0, 1]}]
  "00", // Assignment tags
  "00", // tags
].join("");

const bytes = (spaced: string) => Buffer.from(spaced.replaceAll(" ", ""), "hex");

describe("ConsumerGroupHeartbeat golden bytes written from the spec", () => {
  test("v1 request", () => {
    const frame = bytes(requestV1);
    expect(frame.readInt32BE(0)).toBe(frame.length - 4);
    const request = decodeRequest(frame.subarray(4));
    expect(request).toMatchObject({ api: "ConsumerGroupHeartbeat", header: { apiVersion: 1, correlationId: 42, clientId: "client" } });
    if (!("body" in request) || request.api !== "ConsumerGroupHeartbeat") throw new Error("not decoded");
    expect(request.body).toEqual({
      groupId: "g",
      memberId: "",
      memberEpoch: 0,
      instanceId: null,
      rackId: null,
      rebalanceTimeoutMs: 300000,
      subscribedTopicNames: ["t"],
      subscribedTopicRegex: "re*",
      serverAssignor: null,
      topicPartitions: [{ topicId: TOPIC_ID, partitions: [3] }],
    });
    expect(hex(encodeRequest("ConsumerGroupHeartbeat", request.header, request.body))).toBe(hex(frame));
  });

  test("v0 response", () => {
    const frame = bytes(responseV0);
    expect(frame.readInt32BE(0)).toBe(frame.length - 4);
    const { correlationId, body } = decodeResponse("ConsumerGroupHeartbeat", 0, frame.subarray(4));
    expect(correlationId).toBe(7);
    expect(body).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: "m",
      memberEpoch: 5,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [{ topicId: TOPIC_ID, partitions: [0, 1] }] },
    });
    expect(hex(encodeResponse("ConsumerGroupHeartbeat", 0, 7, body))).toBe(hex(frame));
  });

  test("v0 has no SubscribedTopicRegex: a regex cannot be written at v0", () => {
    const frame = bytes(requestV1);
    const request = decodeRequest(frame.subarray(4));
    if (!("body" in request)) throw new Error("not decoded");
    expect(() => encodeRequest("ConsumerGroupHeartbeat", { ...request.header, apiVersion: 0 }, request.body as never)).toThrow(
      /subscribedTopicRegex has a non-default value that v0 cannot carry/,
    );
  });
});
