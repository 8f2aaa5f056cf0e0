import { decode, decodeAssignment, decodeSubscription, ErrorCode, encode, type Message, topicIdFor } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  assignmentFromKafka,
  assignmentToKafka,
  consumerProtocolBytes,
  decodeRequest,
  fetchToKcsim,
  fetchToWire,
  joinGroupToKcsim,
  joinGroupToWire,
  leaveGroupToWire,
  listOffsetsToWire,
  offsetFetchToWire,
  produceToKcsim,
  produceToWire,
  readRecordBatches,
  recordBytes,
  recordText,
  subscriptionFromKafka,
  subscriptionToKafka,
  syncGroupToKcsim,
  type WireMappingContext,
  type WireRequest,
} from "../src/index.js";
import { capturedFrames, hex, kafkajsFixtures } from "./support/fixtures.js";

const request = (client: "librdkafka" | "kafkajs-live", name: string): WireRequest => {
  const decoded = decodeRequest(capturedFrames(client).get(name)!);
  if ("unsupportedVersion" in decoded) throw new Error(name);
  return decoded;
};

/** kcsim's own codec validates every message's shape: a mapped message must pass it. */
const throughKcsimCodec = (message: Message): Message => decode(encode(message));

const context: WireMappingContext = {
  topicIdOf: (name) => (name === "t" ? topicIdFor("t") : undefined),
  topicNameOf: (id) => (id === topicIdFor("t") ? "t" : undefined),
  endpointOf: (nodeId) => ({ host: "127.0.0.1", port: 9092 + nodeId }),
};

describe("the consumer protocol in Kafka's binary form", () => {
  test("KafkaJS's v1 subscription with a v0 body is read all the same", () => {
    const subscription = subscriptionFromKafka(kafkajsFixtures("JoinGroup").get("v1_assignerMetadata")!)!;
    expect(subscription).toMatchObject({ version: 1, ownedPartitions: [], generationId: -1 });
    expect(subscription.topics).toHaveLength(1);
  });

  test("librdkafka's subscriptions and KafkaJS's assignments read and write back byte for byte", () => {
    const subscriptions: Uint8Array[] = [];
    const join = request("librdkafka", "JoinGroup v5");
    if (join.api !== "JoinGroup") throw new Error("not a JoinGroup");
    subscriptions.push(...join.body.protocols.map((p) => p.metadata));
    for (const bytes of subscriptions) {
      const subscription = subscriptionFromKafka(bytes)!;
      expect(subscription).toBeDefined();
      expect(hex(subscriptionToKafka(subscription))).toBe(hex(bytes));
    }
    expect(subscriptionFromKafka(join.body.protocols[0]!.metadata)!.topics).toEqual(["t"]);
    const assignment = kafkajsFixtures("SyncGroup").get("v1_memberAssignment")!;
    expect(hex(assignmentToKafka(assignmentFromKafka(assignment)!))).toBe(hex(assignment));
  });

  test("JoinGroup metadata crosses to kcsim's msgpack form and back unchanged", () => {
    const join = request("librdkafka", "JoinGroup v5");
    if (join.api !== "JoinGroup") throw new Error("not a JoinGroup");
    const kcsim = throughKcsimCodec(joinGroupToKcsim(join.header, join.body));
    if (kcsim.type !== "JoinGroupRequest") throw new Error("not mapped");
    expect(kcsim).toMatchObject({ groupId: "grp", apiVersion: 5, clientId: "rdkafka", protocolType: "consumer" });
    const subscription = decodeSubscription(kcsim.protocols[0]!.metadata);
    expect(subscription.topics).toEqual(["t"]);
    const wire = joinGroupToWire(
      {
        type: "JoinGroupResponse",
        correlationId: 1,
        throttleTimeMs: 0,
        errorCode: 0,
        generationId: 1,
        protocolType: "consumer",
        protocolName: null,
        leader: "m",
        skipAssignment: false,
        memberId: "m",
        members: [{ memberId: "m", groupInstanceId: null, metadata: kcsim.protocols[0]!.metadata }],
      },
      true,
    );
    expect(hex(wire.members[0]!.metadata)).toBe(hex(join.body.protocols[0]!.metadata));
    expect(wire.protocolName).toBe("");
  });

  test("SyncGroup assignments cross to kcsim and back; bytes that are not the consumer protocol pass through", () => {
    const sync = request("kafkajs-live", "SyncGroup v3");
    if (sync.api !== "SyncGroup") throw new Error("not a SyncGroup");
    const kcsim = throughKcsimCodec(syncGroupToKcsim(sync.header, sync.body, true));
    if (kcsim.type !== "SyncGroupRequest") throw new Error("not mapped");
    const assignment = decodeAssignment(kcsim.assignments[0]!.assignment);
    expect(assignment.assignedPartitions).toEqual([{ topic: "kjs", partitions: [0] }]);
    expect(hex(consumerProtocolBytes.assignmentToKafka(kcsim.assignments[0]!.assignment))).toBe(hex(sync.body.assignments[0]!.assignment));
    expect(hex(consumerProtocolBytes.assignmentToKcsim(Uint8Array.of(1, 2, 3)))).toBe("010203");
  });
});

describe("records", () => {
  test("record text is lossless for any bytes", () => {
    fc.assert(
      fc.property(fc.option(fc.uint8Array({ maxLength: 40 })), (bytes) => {
        expect(recordBytes(recordText(bytes))).toEqual(bytes);
      }),
    );
    expect(recordText(new TextEncoder().encode("v1"))).toBe("v1");
    expect(recordText(Uint8Array.of(0xff))).toBe("\u0000b64:/w==");
  });

  test("librdkafka's gzip produce maps to kcsim with its bytes kept; a legacy v2 produce is rejected per partition", () => {
    const produce = request("librdkafka", "Produce v7 gzip");
    if (produce.api !== "Produce") throw new Error("not a Produce");
    const mapped = produceToKcsim(produce.header, produce.body);
    const kcsim = throughKcsimCodec(mapped.request!);
    if (kcsim.type !== "ProduceRequest") throw new Error("not mapped");
    const batch = kcsim.topicData[0]!.partitionData[0]!.records;
    expect(batch.records.map((r) => [r.key, r.value])).toEqual([["k3", "v3".repeat(100)]]);
    expect(batch.sizeInBytes).toBe(mapped.batchBytes.get("t-0")!.length);
    expect(batch.records[0]!.sizeInBytes).toBeGreaterThan(200);
    const legacy = request("librdkafka", "Produce v2");
    if (legacy.api !== "Produce") throw new Error("not a Produce");
    const rejected = produceToKcsim(legacy.header, legacy.body);
    expect(rejected.request).toBeUndefined();
    expect(rejected.rejected.map((r) => r.errorCode)).toEqual([ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT]);
    const answer = produceToWire(undefined, rejected.rejected);
    expect(answer.responses[0]!.partitionResponses[0]).toMatchObject({
      errorCode: ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
      baseOffset: -1n,
    });
  });

  test("a fetch maps names to ids, and the answer serves stored bytes or synthesizes real batches", () => {
    const fetch = request("librdkafka", "Fetch v11");
    if (fetch.api !== "Fetch") throw new Error("not a Fetch");
    const mapped = fetchToKcsim(fetch.header, fetch.body, context);
    expect(mapped.unknownTopics).toEqual([]);
    expect(throughKcsimCodec(mapped.request)).toMatchObject({ type: "FetchRequest", topics: [{ topicId: topicIdFor("t") }] });
    const simBatch = {
      baseOffset: 5,
      lastOffsetDelta: 1,
      partitionLeaderEpoch: 0,
      sizeInBytes: 100,
      baseTimestamp: 1000,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      isTransactional: false,
      isControl: false,
      records: [
        { offsetDelta: 0, timestampDelta: 0, key: null, value: "m-0", sizeInBytes: 10 },
        { offsetDelta: 1, timestampDelta: 3, key: "k", value: "\u0000b64:/w==", sizeInBytes: 10 },
      ],
    };
    const response = {
      type: "FetchResponse" as const,
      correlationId: 1,
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topicId: topicIdFor("t"),
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 7,
              lastStableOffset: 7,
              logStartOffset: 0,
              abortedTransactions: null,
              preferredReadReplica: -1,
              records: [simBatch],
            },
            {
              partitionIndex: 1,
              errorCode: 0,
              highWatermark: 0,
              lastStableOffset: 0,
              logStartOffset: 0,
              abortedTransactions: null,
              preferredReadReplica: -1,
              records: [],
            },
          ],
        },
      ],
    };
    const wire = fetchToWire(response, context);
    const [synthesized] = readRecordBatches(wire.responses[0]!.partitions[0]!.records!);
    expect(synthesized!.batch).toMatchObject({ baseOffset: 5n, maxTimestamp: 1003n, compression: "none" });
    expect(synthesized!.batch.records.map((r) => recordText(r.value))).toEqual(["m-0", "\u0000b64:/w=="]);
    expect(wire.responses[0]!.partitions[1]!.records).toEqual(new Uint8Array(0));
    const stored = fetchToWire(response, context, () => Uint8Array.of(9, 9));
    expect(hex(stored.responses[0]!.partitions[0]!.records!)).toBe("0909");
  });
});

describe("what older versions cannot carry", () => {
  test("OffsetFetch below v2 puts a group error in every partition; below v5 there is no leader epoch", () => {
    const response = {
      type: "OffsetFetchResponse" as const,
      correlationId: 1,
      throttleTimeMs: 0,
      groups: [
        {
          groupId: "g",
          errorCode: ErrorCode.NOT_COORDINATOR,
          topics: [
            { name: "t", partitions: [{ partitionIndex: 0, committedOffset: 3, committedLeaderEpoch: 2, metadata: "", errorCode: 0 }] },
          ],
        },
      ],
    };
    expect(offsetFetchToWire(response, 1)).toMatchObject({
      errorCode: 0,
      topics: [{ partitions: [{ errorCode: ErrorCode.NOT_COORDINATOR, committedLeaderEpoch: -1 }] }],
    });
    expect(offsetFetchToWire(response, 5)).toMatchObject({
      errorCode: ErrorCode.NOT_COORDINATOR,
      topics: [{ partitions: [{ errorCode: 0, committedLeaderEpoch: 2 }] }],
    });
  });

  test("LeaveGroup below v3 lifts a member's error; ListOffsets v0 answers a list", () => {
    const leave = {
      type: "LeaveGroupResponse" as const,
      correlationId: 1,
      throttleTimeMs: 0,
      errorCode: 0,
      members: [{ memberId: "m", groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID }],
    };
    expect(leaveGroupToWire(leave, 1)).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_MEMBER_ID, members: [] });
    const list = {
      type: "ListOffsetsResponse" as const,
      correlationId: 1,
      throttleTimeMs: 0,
      topics: [{ name: "t", partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1, offset: 42, leaderEpoch: 0 }] }],
    };
    expect(listOffsetsToWire(list, 0).topics[0]!.partitions[0]).toMatchObject({ oldStyleOffsets: [42n], offset: -1n });
    expect(listOffsetsToWire(list, 2).topics[0]!.partitions[0]).toMatchObject({ oldStyleOffsets: [], offset: 42n });
  });
});
