import { decode, ErrorCode, encode, type FetchResponse, type Message, type MetadataResponse, topicIdFor } from "@kcsim/protocol";
import { describe, expect, test } from "vitest";
import {
  decodeRequest,
  decodeResponseBody,
  encodeResponseBody,
  fetchToKcsim,
  fetchToWire,
  findCoordinatorToKcsim,
  findCoordinatorToWire,
  listOffsetsToKcsim,
  listOffsetsToWire,
  metadataToWire,
  offsetFetchToKcsim,
  offsetFetchToWire,
  TopicUuids,
  type WireMappingContext,
  type WireRequest,
  ZERO_UUID,
} from "../src/index.js";
import { capturedFrames } from "./support/fixtures.js";

/**
 * The mapping at the versions a KIP-848 client speaks (@platformatic/kafka 1.35.0's captured requests): topics by
 * their Kafka Uuids (Metadata v10+, Fetch v13), batched FindCoordinator (v4) and OffsetFetch (v8, v9 with the
 * member's epoch), leader epochs (ListOffsets v4+).
 */
const request = (name: string): WireRequest => {
  const decoded = decodeRequest(capturedFrames("platformatic").get(name)!);
  if ("unsupportedVersion" in decoded) throw new Error(name);
  return decoded;
};

/** kcsim's own codec validates every message's shape: a mapped message must pass it. */
const throughKcsimCodec = (message: Message): Message => decode(encode(message));

/** A context whose one topic, "orders", has a kcsim id that is not a Kafka Uuid (as topicIdFor's often are not). */
const ORDERS = "orders-kcsim-id";
const uuids = new TopicUuids();
const context: WireMappingContext = {
  topicIdOf: (name) => (name === "orders" ? ORDERS : undefined),
  topicNameOf: (id) => (id === ORDERS ? "orders" : undefined),
  endpointOf: (nodeId) => ({ host: "127.0.0.1", port: 9092 + nodeId }),
  kafkaTopicIdOf: (id) => uuids.kafkaIdOf(id),
  kcsimTopicIdOf: (kafkaId) => uuids.kcsimIdOf(kafkaId) ?? kafkaId,
};

describe("Kafka Uuids for kcsim topic ids", () => {
  test("an id that is a Kafka Uuid travels as itself; any other as a stable Uuid, both ways", () => {
    const ids = new TopicUuids();
    const kafkaLike = "AAAAAAAAAAAAAAAAAAAAAQ";
    expect(ids.kafkaIdOf(kafkaLike)).toBe(kafkaLike);
    const other = ids.kafkaIdOf("orders-kcsim-id");
    expect(other).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(other, "base64url").toString("base64url")).toBe(other);
    expect(ids.kafkaIdOf("orders-kcsim-id")).toBe(other);
    expect(new TopicUuids().kafkaIdOf("orders-kcsim-id")).toBe(other);
    expect(ids.kcsimIdOf(other)).toBe("orders-kcsim-id");
    expect(ids.kcsimIdOf(kafkaLike)).toBe(kafkaLike);
    expect(ids.kcsimIdOf("BAAAAAAAAAAAAAAAAAAAAA")).toBeUndefined();
    // topicIdFor's ids are 22 characters, but not all decode to exactly 16 bytes.
    const made = ids.kafkaIdOf(topicIdFor("payments"));
    expect(Buffer.from(made, "base64url")).toHaveLength(16);
  });
});

describe("Metadata v10-12: topic ids", () => {
  const response: MetadataResponse = {
    type: "MetadataResponse",
    correlationId: 1,
    throttleTimeMs: 0,
    brokers: [{ nodeId: 0, host: "broker-0", port: 0, rack: null }],
    controllerId: 0,
    topics: [
      {
        errorCode: 0,
        name: "orders",
        topicId: ORDERS,
        isInternal: false,
        partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, leaderEpoch: 7, replicaNodes: [0], isrNodes: [0] }],
      },
      { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: "nope", topicId: "", isInternal: false, partitions: [] },
      { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: "", topicId: "CAAAAAAAAAAAAAAAAAAAAA", isInternal: false, partitions: [] },
    ],
  };

  test("a topic's id is its Kafka Uuid, its leader epoch goes out from v7, unknown topics read as Kafka answers them", () => {
    const wire = metadataToWire(response, context, null, 12);
    const [orders, byName, byId] = wire.topics;
    expect(orders).toMatchObject({ name: "orders", topicId: uuids.kafkaIdOf(ORDERS), errorCode: 0 });
    expect(orders?.partitions[0]?.leaderEpoch).toBe(7);
    expect(byName).toMatchObject({ name: "nope", topicId: ZERO_UUID });
    expect(byId).toMatchObject({ name: null, topicId: "CAAAAAAAAAAAAAAAAAAAAA" });
    const bytes = encodeResponseBody("Metadata", 12, wire);
    expect(decodeResponseBody("Metadata", 12, bytes).topics[0]?.topicId).toBe(uuids.kafkaIdOf(ORDERS));
  });

  test("below v12 a topic asked for by an unknown id keeps its (empty) name; below v10 no id is written", () => {
    expect(metadataToWire(response, context, null, 11).topics[2]?.name).toBe("");
    const v6 = decodeResponseBody("Metadata", 6, encodeResponseBody("Metadata", 6, metadataToWire(response, context, null, 6)));
    expect(v6.topics[0]).toMatchObject({ name: "orders", topicId: ZERO_UUID });
    expect(v6.topics[0]?.partitions[0]?.leaderEpoch).toBe(-1);
  });
});

describe("FindCoordinator v4: a batch of keys", () => {
  test("the client's keys go to kcsim as they are; each answer is written apart, an error's with node -1", () => {
    const wire = request("FindCoordinator v4");
    if (wire.api !== "FindCoordinator") throw new Error(wire.api);
    const kcsim = findCoordinatorToKcsim(wire.header, wire.body);
    expect(kcsim.coordinatorKeys).toEqual(wire.body.coordinatorKeys);
    throughKcsimCodec({ ...kcsim, correlationId: 1 });
    const answer = findCoordinatorToWire(
      {
        type: "FindCoordinatorResponse",
        correlationId: 1,
        throttleTimeMs: 0,
        coordinators: [
          { key: "g1", nodeId: 1, host: "coordinator-1", port: 0, errorCode: 0, errorMessage: null },
          { key: "g2", nodeId: 5, host: "", port: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: "down" },
        ],
      },
      context,
      4,
    );
    expect(answer.coordinators).toEqual([
      { key: "g1", nodeId: 1, host: "127.0.0.1", port: 9093, errorCode: 0, errorMessage: null },
      { key: "g2", nodeId: -1, host: "", port: -1, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: "down" },
    ]);
    expect(decodeResponseBody("FindCoordinator", 4, encodeResponseBody("FindCoordinator", 4, answer)).coordinators).toEqual(
      answer.coordinators,
    );
  });
});

describe("OffsetFetch v8-9: groups, and the member's epoch", () => {
  test("v9 carries the KIP-848 member's id and epoch to the coordinator", () => {
    const wire = request("OffsetFetch v9");
    if (wire.api !== "OffsetFetch") throw new Error(wire.api);
    const kcsim = offsetFetchToKcsim(wire.header, wire.body);
    expect(kcsim.groups).toHaveLength(wire.body.groups.length);
    expect(kcsim.groups[0]).toMatchObject({ groupId: wire.body.groups[0]?.groupId, memberId: wire.body.groups[0]?.memberId });
    expect(kcsim.groups[0]?.memberEpoch).toBe(wire.body.groups[0]?.memberEpoch);
    expect(kcsim.groups[0]?.memberEpoch).toBeGreaterThan(0);
    throughKcsimCodec({ ...kcsim, correlationId: 1 });
  });

  test("each group's answer, its error included, goes out as its own entry", () => {
    const answer = offsetFetchToWire(
      {
        type: "OffsetFetchResponse",
        correlationId: 1,
        throttleTimeMs: 0,
        groups: [
          {
            groupId: "g1",
            errorCode: 0,
            topics: [
              {
                name: "orders",
                partitions: [{ partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: 3, metadata: "", errorCode: 0 }],
              },
            ],
          },
          { groupId: "g2", errorCode: ErrorCode.STALE_MEMBER_EPOCH, topics: [] },
        ],
      },
      9,
    );
    const read = decodeResponseBody("OffsetFetch", 9, encodeResponseBody("OffsetFetch", 9, answer));
    expect(read.groups.map((g) => [g.groupId, g.errorCode])).toEqual([
      ["g1", 0],
      ["g2", ErrorCode.STALE_MEMBER_EPOCH],
    ]);
    expect(read.groups[0]?.topics[0]?.partitions[0]).toMatchObject({ committedOffset: 42n, committedLeaderEpoch: 3 });
  });
});

describe("ListOffsets v4+: leader epochs", () => {
  test("the client's current leader epoch reaches the broker; the answer's leader epoch goes out from v4 only", () => {
    const wire = request("ListOffsets v6");
    if (wire.api !== "ListOffsets") throw new Error(wire.api);
    const kcsim = listOffsetsToKcsim(wire.header, wire.body);
    expect(kcsim.topics[0]?.partitions[0]?.currentLeaderEpoch).toBe(wire.body.topics[0]?.partitions[0]?.currentLeaderEpoch);
    const response = {
      type: "ListOffsetsResponse" as const,
      correlationId: 1,
      throttleTimeMs: 0,
      topics: [{ name: "orders", partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1, offset: 17, leaderEpoch: 4 }] }],
    };
    expect(listOffsetsToWire(response, 6).topics[0]?.partitions[0]?.leaderEpoch).toBe(4);
    // Below v4 there is no field for it: the answer must still encode.
    const v3 = listOffsetsToWire(response, 3);
    expect(v3.topics[0]?.partitions[0]?.leaderEpoch).toBe(-1);
    expect(() => encodeResponseBody("ListOffsets", 3, v3)).not.toThrow();
  });
});

describe("Fetch v13: topics by id", () => {
  test("the client's topic ids resolve to kcsim's; an id nobody gave out is an unknown topic", () => {
    const wire = request("Fetch v13");
    if (wire.api !== "Fetch") throw new Error(wire.api);
    // The captured request names its topic by the toy broker's id: here that id is unknown.
    const unknown = fetchToKcsim(wire.header, wire.body, context);
    expect(unknown.request.topics).toEqual([]);
    expect(unknown.unknownTopics).toEqual(wire.body.topics.map((t) => t.topicId));
    // The same request for "orders" by its Kafka Uuid.
    const body = { ...wire.body, topics: wire.body.topics.map((t) => ({ ...t, topic: "", topicId: uuids.kafkaIdOf(ORDERS) })) };
    const mapped = fetchToKcsim(wire.header, body, context);
    expect(mapped.unknownTopics).toEqual([]);
    expect(mapped.request.topics.map((t) => t.topicId)).toEqual([ORDERS]);
    throughKcsimCodec({ ...mapped.request, correlationId: 1 });
  });

  test("the answer names topics by Kafka Uuid at v13 and by name below; its tagged fields stay at their defaults", () => {
    const response: FetchResponse = {
      type: "FetchResponse",
      correlationId: 1,
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topicId: ORDERS,
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 3,
              lastStableOffset: 3,
              logStartOffset: 0,
              abortedTransactions: null,
              preferredReadReplica: -1,
              records: [],
            },
          ],
        },
      ],
    };
    const v13 = fetchToWire(response, context, undefined, 13);
    expect(v13.responses[0]).toMatchObject({ topic: "", topicId: uuids.kafkaIdOf(ORDERS) });
    const read = decodeResponseBody("Fetch", 13, encodeResponseBody("Fetch", 13, v13));
    expect(read.responses[0]?.topicId).toBe(uuids.kafkaIdOf(ORDERS));
    expect(read.responses[0]?.partitions[0]?.currentLeader).toEqual({ leaderId: -1, leaderEpoch: -1 });
    expect(fetchToWire(response, context, undefined, 12).responses[0]).toMatchObject({ topic: "orders", topicId: ZERO_UUID });
  });
});
