import { ErrorCode } from "@kcsim/protocol";
import {
  Connection,
  consumerGroupHeartbeatV0,
  consumerGroupHeartbeatV1,
  fetchV12,
  fetchV13,
  findCoordinatorV4,
  listOffsetsV5,
  listOffsetsV6,
  metadataV9,
  metadataV10,
  metadataV11,
  metadataV12,
  offsetCommitV8,
  offsetCommitV9,
  offsetFetchV8,
  offsetFetchV9,
  Producer,
  Reader,
  ResponseError,
  stringSerializers,
} from "@platformatic/kafka";
import { afterEach, describe, expect, test } from "vitest";
import {
  APIS,
  type ApiName,
  AUTHORIZED_OPERATIONS_OMITTED,
  decodeRequest,
  encodeRecordBatch,
  encodeRequest,
  encodeResponse,
  errorResponseFor,
  isFlexible,
  type WireRequest,
  type WireResponseOf,
  ZERO_UUID,
} from "../src/index.js";
import { capturedFrames, hex, rejectedFrames } from "./support/fixtures.js";
import { sampleBatch } from "./support/sample-batch.js";
import { ToyBroker } from "./support/toy-broker.js";

/**
 * @platformatic/kafka 1.35.0 against this package's bytes: each response
 * version it can pick here, encoded by kcsim and read by the client's own
 * parser (dist/apis/<group>/<api>-v<N>.js parseResponse, fed a Reader over
 * the bytes after the response header, as its connection does), so what it
 * reads is what a real client would. `left` is what the parser leaves
 * unread: none of them reads the response's closing tagged-field count, and
 * a few read a field the spec does not have at that version (noted).
 */
type Parse<T> = (correlationId: number, apiKey: number, apiVersion: number, reader: Reader) => T;

interface ReadBack<T> {
  readonly response: T;
  /** Bytes the parser left unread. */
  readonly left: number;
  /** Whether the parser threw its ResponseError (it found an error code): `response` is then what it had read. */
  readonly failed: boolean;
}

function readBack<N extends ApiName, T>(name: N, version: number, body: WireResponseOf<N>, parse: Parse<T>): ReadBack<T> {
  const api = APIS[name];
  const frame = Buffer.from(encodeResponse(name, version, 7, body));
  expect(frame.readInt32BE(4)).toBe(7);
  let at = 8; // size prefix and correlation id
  if (isFlexible(api, version)) {
    // Header v1: the client skips exactly one byte, an empty tagged-field section (network/connection.js #onData).
    expect(frame[at]).toBe(0);
    at += 1;
  }
  const reader = Reader.from(frame.subarray(at));
  try {
    return { response: parse(7, api.key, version, reader), left: reader.remaining, failed: false };
  } catch (error) {
    // A parser that finds an error code throws it, with what it read.
    if (!(error instanceof ResponseError) || !("response" in error)) throw error;
    return { response: error.response as T, left: reader.remaining, failed: true };
  }
}

const TOPIC_ID = "AAECAwQFBgcICQoLDA0ODw"; // Uuid bytes 00 01 .. 0f

/** A Kafka Uuid's string form (base64url) as @platformatic/kafka writes Uuids: 8-4-4-4-12 hex. */
function uuidAsText(kafkaUuid: string): string {
  const id = Buffer.from(kafkaUuid, "base64url").toString("hex");
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}
const TOPIC_UUID = "00010203-0405-0607-0809-0a0b0c0d0e0f"; // the same, as the client writes Uuids

const request = (api: ApiName, apiVersion: number, body: unknown): WireRequest =>
  ({ api, header: { apiKey: APIS[api].key, apiVersion, correlationId: 7, clientId: "c" }, body }) as WireRequest;

describe("responses encoded here, read by @platformatic/kafka 1.35.0's parsers", () => {
  const metadata: WireResponseOf<"Metadata"> = {
    throttleTimeMs: 0,
    brokers: [
      { nodeId: 0, host: "127.0.0.1", port: 9092, rack: null },
      { nodeId: 1, host: "b", port: 9093, rack: "r1" },
    ],
    clusterId: "toy",
    controllerId: 1,
    topics: [
      {
        errorCode: 0,
        name: "t",
        topicId: TOPIC_ID,
        isInternal: false,
        partitions: [
          { errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 3, replicaNodes: [1, 0], isrNodes: [1], offlineReplicas: [0] },
        ],
        topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
      },
    ],
    clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
  };
  // v9-10 read a BOOLEAN where the spec has the INT32 ClusterAuthorizedOperations (3 of its bytes are left, and the
  // closing tag count); v11 reads a BOOLEAN for it although v11 has none (it takes the closing tag count).
  test.each([
    [9, metadataV9.parseResponse, 4],
    [10, metadataV10.parseResponse, 4],
    [11, metadataV11.parseResponse, 0],
    [12, metadataV12.parseResponse, 1],
  ] as const)("Metadata v%i", (version, parse, left) => {
    const read = readBack("Metadata", version, metadata, parse as Parse<unknown>);
    expect(read.response).toEqual({
      throttleTimeMs: 0,
      brokers: [
        { nodeId: 0, host: "127.0.0.1", port: 9092, rack: null },
        { nodeId: 1, host: "b", port: 9093, rack: "r1" },
      ],
      clusterId: "toy",
      controllerId: 1,
      topics: [
        {
          errorCode: 0,
          name: "t",
          // v9 has no topic ids: the client uses the name as the id.
          topicId: version >= 10 ? TOPIC_UUID : "t",
          isInternal: false,
          partitions: [
            { errorCode: 0, partitionIndex: 0, leaderId: 1, leaderEpoch: 3, replicaNodes: [1, 0], isrNodes: [1], offlineReplicas: [0] },
          ],
          topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        },
      ],
    });
    expect([read.left, read.failed]).toEqual([left, false]);
  });

  test("Metadata v12: a topic asked for by an unknown id comes back with a null name and UNKNOWN_TOPIC_ID", () => {
    const body: WireResponseOf<"Metadata"> = {
      ...metadata,
      topics: [
        {
          errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
          name: null,
          topicId: TOPIC_ID,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        },
      ],
    };
    const read = readBack("Metadata", 12, body, metadataV12.parseResponse);
    expect(read.failed).toBe(true);
    expect(read.response).toMatchObject({ topics: [{ errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId: TOPIC_UUID }] });
  });

  test("FindCoordinator v4: one coordinator per key", () => {
    const read = readBack(
      "FindCoordinator",
      4,
      {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        nodeId: 0,
        host: "",
        port: 0,
        coordinators: [
          { key: "g", nodeId: 1, host: "h", port: 9092, errorCode: 0, errorMessage: null },
          { key: "g2", nodeId: 0, host: "i", port: 9093, errorCode: 0, errorMessage: null },
        ],
      },
      findCoordinatorV4.parseResponse,
    );
    expect(read.response).toEqual({
      throttleTimeMs: 0,
      coordinators: [
        { key: "g", nodeId: 1, host: "h", port: 9092, errorCode: 0, errorMessage: null },
        { key: "g2", nodeId: 0, host: "i", port: 9093, errorCode: 0, errorMessage: null },
      ],
    });
    expect([read.left, read.failed]).toEqual([1, false]);
  });

  test("FindCoordinator v4: the error answer (errorResponseFor) gives each key its error", () => {
    const body = errorResponseFor(
      request("FindCoordinator", 4, { key: "", keyType: 0, coordinatorKeys: ["g", "g2"] }),
      ErrorCode.COORDINATOR_NOT_AVAILABLE,
      "not yet",
    ) as WireResponseOf<"FindCoordinator">;
    const read = readBack("FindCoordinator", 4, body, findCoordinatorV4.parseResponse);
    expect(read.failed).toBe(true);
    const coordinator = (key: string) => ({
      key,
      nodeId: -1,
      host: "",
      port: -1,
      errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
      errorMessage: "not yet",
    });
    expect(read.response).toEqual({ throttleTimeMs: 0, coordinators: [coordinator("g"), coordinator("g2")] });
  });

  const offsetFetch: WireResponseOf<"OffsetFetch"> = {
    throttleTimeMs: 0,
    topics: [],
    errorCode: 0,
    groups: [
      {
        groupId: "g",
        topics: [
          {
            name: "t",
            partitions: [
              { partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: 3, metadata: "m", errorCode: 0 },
              { partitionIndex: 1, committedOffset: -1n, committedLeaderEpoch: -1, metadata: null, errorCode: 0 },
            ],
          },
        ],
        errorCode: 0,
      },
    ],
  };
  test.each([
    [8, offsetFetchV8.parseResponse],
    [9, offsetFetchV9.parseResponse],
  ] as const)("OffsetFetch v%i: per group", (version, parse) => {
    const read = readBack("OffsetFetch", version, offsetFetch, parse);
    expect(read.response).toEqual({
      throttleTimeMs: 0,
      groups: [
        {
          groupId: "g",
          topics: [
            {
              name: "t",
              partitions: [
                { partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: 3, metadata: "m", errorCode: 0 },
                { partitionIndex: 1, committedOffset: -1n, committedLeaderEpoch: -1, metadata: null, errorCode: 0 },
              ],
            },
          ],
          errorCode: 0,
        },
      ],
    });
    expect([read.left, read.failed]).toEqual([1, false]);
  });

  test("OffsetFetch v9: the error answer (errorResponseFor) gives each group its error", () => {
    const group = (groupId: string) => ({ groupId, memberId: "m", memberEpoch: 4, topics: null });
    const body = errorResponseFor(
      request("OffsetFetch", 9, { groupId: "", topics: [], groups: [group("g"), group("g2")], requireStable: false }),
      ErrorCode.STALE_MEMBER_EPOCH,
    ) as WireResponseOf<"OffsetFetch">;
    const read = readBack("OffsetFetch", 9, body, offsetFetchV9.parseResponse);
    expect(read.failed).toBe(true);
    expect(read.response).toEqual({
      throttleTimeMs: 0,
      groups: [
        { groupId: "g", topics: [], errorCode: ErrorCode.STALE_MEMBER_EPOCH },
        { groupId: "g2", topics: [], errorCode: ErrorCode.STALE_MEMBER_EPOCH },
      ],
    });
  });

  test.each([
    [8, offsetCommitV8.parseResponse],
    [9, offsetCommitV9.parseResponse],
  ] as const)("OffsetCommit v%i", (version, parse) => {
    const body = {
      throttleTimeMs: 5,
      topics: [
        {
          name: "t",
          partitions: [
            { partitionIndex: 0, errorCode: 0 },
            { partitionIndex: 1, errorCode: 0 },
          ],
        },
      ],
    };
    const read = readBack("OffsetCommit", version, body, parse);
    expect(read.response).toEqual(body);
    expect([read.left, read.failed]).toEqual([1, false]);
  });

  test.each([
    [5, listOffsetsV5.parseResponse, 0],
    [6, listOffsetsV6.parseResponse, 1],
  ] as const)("ListOffsets v%i: the leader epoch per partition", (version, parse, left) => {
    const read = readBack(
      "ListOffsets",
      version,
      {
        throttleTimeMs: 0,
        topics: [
          {
            name: "t",
            partitions: [{ partitionIndex: 0, errorCode: 0, oldStyleOffsets: [], timestamp: -1n, offset: 42n, leaderEpoch: 3 }],
          },
        ],
      },
      parse,
    );
    expect(read.response).toEqual({
      throttleTimeMs: 0,
      topics: [{ name: "t", partitions: [{ partitionIndex: 0, errorCode: 0, timestamp: -1n, offset: 42n, leaderEpoch: 3 }] }],
    });
    expect([read.left, read.failed]).toEqual([left, false]);
  });

  const fetchPartition = {
    partitionIndex: 0,
    errorCode: 0,
    highWatermark: 2n,
    lastStableOffset: 2n,
    logStartOffset: 0n,
    divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1n, epoch: -1 },
    abortedTransactions: [{ producerId: 9n, firstOffset: 1n }],
    preferredReadReplica: -1,
    records: encodeRecordBatch(sampleBatch),
  };

  /** A Fetch answer of these topics, with no error, throttle or session. */
  const fetchResponse = (responses: WireResponseOf<"Fetch">["responses"]): WireResponseOf<"Fetch"> => ({
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses,
  });

  /** What the client read of `fetchPartition`: every field, the batch's two records, and nothing left but the closing tags. */
  const expectFetchPartitionRead = (read: ReadBack<ReturnType<typeof fetchV13.parseResponse>>) => {
    const { records, ...partition } = read.response.responses[0]!.partitions[0]!;
    expect(partition).toEqual({
      partitionIndex: 0,
      errorCode: 0,
      highWatermark: 2n,
      lastStableOffset: 2n,
      logStartOffset: 0n,
      abortedTransactions: [{ producerId: 9n, firstOffset: 1n }],
      preferredReadReplica: -1,
    });
    expect(records).toHaveLength(1);
    const batch = records![0]!;
    expect([batch.firstOffset, batch.lastOffsetDelta, batch.firstTimestamp]).toEqual([0n, 1, 1_700_000_000_000n]);
    const text = (b: Buffer | null | undefined) => (b === null || b === undefined ? null : b.toString());
    expect(batch.records.map((r) => [r.offsetDelta, text(r.key), text(r.value), r.headers.map(([k, v]) => [text(k), text(v)])])).toEqual([
      [0, null, "a", []],
      [1, "k", null, [["h", null]]],
    ]);
    expect([read.left, read.failed]).toEqual([1, false]);
  };

  test("Fetch v12: records and aborted transactions; the tagged structs at their defaults are not written", () => {
    const body = fetchResponse([{ topic: "t", topicId: ZERO_UUID, partitions: [fetchPartition] }]); // v12 has no topic id
    const read = readBack("Fetch", 12, body, fetchV12.parseResponse);
    expect(read.response).toMatchObject({ throttleTimeMs: 0, errorCode: 0, sessionId: 0 });
    expect(read.response.responses[0]!.topicId).toBe("t"); // the client's name for v12's topic name
    expectFetchPartitionRead(read);
  });

  test("Fetch v12: a tagged struct that is set (CurrentLeader) is written, and @platformatic/kafka 1.35.0 cannot skip it", () => {
    // Its Reader.readTaggedFields (dist/protocol/reader.js) reads the count of tagged fields as a zigzag varint and
    // skips that many bytes, so one tagged field (count 1, read as -1) is not skipped and the next partition is read
    // from inside it. kcsim must leave DivergingEpoch, CurrentLeader and SnapshotId at their defaults for this client.
    const led = { ...fetchPartition, currentLeader: { leaderId: 1, leaderEpoch: 4 }, records: new Uint8Array(0) };
    const body = fetchResponse([{ topic: "t", topicId: ZERO_UUID, partitions: [led, { ...led, partitionIndex: 1 }] }]);
    // Each partition's tagged section: one field, tag 1, 9 bytes: LeaderId 1, LeaderEpoch 4, the struct's empty tags.
    expect(hex(encodeResponse("Fetch", 12, 7, body))).toContain("010109000000010000000400");
    const read = readBack("Fetch", 12, body, fetchV12.parseResponse);
    const [first, second] = read.response.responses[0]!.partitions;
    expect(first).toMatchObject({ partitionIndex: 0, errorCode: 0, highWatermark: 2n });
    // The second partition is read from the first one's tagged field on: a bogus partition with a bogus error.
    expect(second).toMatchObject({ partitionIndex: 17367040, errorCode: 1 });
    expect(read.failed).toBe(true);
  });

  test("Fetch v13: the topic by its id (Uuid), no name; records and aborted transactions", () => {
    const body = fetchResponse([{ topic: "", topicId: TOPIC_ID, partitions: [fetchPartition] }]); // v13 has no topic name
    const frame = encodeResponse("Fetch", 13, 7, body);
    // Header v1 (correlation 7, no tags), ThrottleTimeMs 0, ErrorCode 0, SessionId 0, Responses: 1 entry, TopicId 00..0f.
    expect(hex(frame.subarray(4, 36))).toBe("00000007 00 00000000 0000 00000000 02 000102030405060708090a0b0c0d0e0f".replaceAll(" ", ""));
    const read = readBack("Fetch", 13, body, fetchV13.parseResponse);
    expect(read.response).toMatchObject({ throttleTimeMs: 0, errorCode: 0, sessionId: 0 });
    expect(read.response.responses.map((t) => t.topicId)).toEqual([TOPIC_UUID]);
    expectFetchPartitionRead(read);
  });

  test("Fetch v13: an unknown topic id is answered UNKNOWN_TOPIC_ID, the id echoed", () => {
    const unknown = {
      ...fetchPartition,
      errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
      highWatermark: -1n,
      lastStableOffset: -1n,
      logStartOffset: -1n,
      abortedTransactions: null,
      records: new Uint8Array(0),
    };
    const body = fetchResponse([{ topic: "", topicId: TOPIC_ID, partitions: [unknown] }]);
    const read = readBack("Fetch", 13, body, fetchV13.parseResponse);
    expect(read.failed).toBe(true);
    expect(read.response.responses).toEqual([
      {
        topicId: TOPIC_UUID,
        partitions: [
          {
            partitionIndex: 0,
            errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: -1n,
            abortedTransactions: [], // null (compact: 0) reads as no entries
            preferredReadReplica: -1,
          },
        ],
      },
    ]);
    expect(read.left).toBe(1);
  });

  const heartbeat: WireResponseOf<"ConsumerGroupHeartbeat"> = {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    memberId: "m",
    memberEpoch: 5,
    heartbeatIntervalMs: 5000,
    assignment: { topicPartitions: [{ topicId: TOPIC_ID, partitions: [0, 1] }] },
  };
  // Neither parser reads the Assignment's own tagged-field count nor the closing one.
  test.each([
    [0, consumerGroupHeartbeatV0.parseResponse],
    [1, consumerGroupHeartbeatV1.parseResponse],
  ] as const)("ConsumerGroupHeartbeat v%i: the assignment by topic id", (version, parse) => {
    const read = readBack("ConsumerGroupHeartbeat", version, heartbeat, parse);
    expect(read.response).toEqual({ ...heartbeat, assignment: { topicPartitions: [{ topicId: TOPIC_UUID, partitions: [0, 1] }] } });
    expect([read.left, read.failed]).toEqual([2, false]);
  });
});

describe("@platformatic/kafka 1.35.0's requests, as captured (fixtures/platformatic)", () => {
  test("its Metadata v11 request is v10's layout: IncludeClusterAuthorizedOperations (v8-10) is still there", () => {
    const rejected = rejectedFrames("platformatic").get("Metadata v11");
    expect(rejected?.error).toMatch(/MetadataRequest/);
    const asV10 = Buffer.from(rejected!.frame);
    asV10.writeInt16BE(10, 2);
    const request = decodeRequest(asV10);
    if (!("body" in request) || request.api !== "Metadata") throw new Error("not decoded as v10");
    expect(request.body).toMatchObject({
      topics: [{ name: "plt" }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: true,
    });
    expect(hex(encodeRequest("Metadata", request.header, request.body).subarray(4))).toBe(hex(asV10));
  });

  test("its Fetch v12 request names the topic by its id, written as text (8-4-4-4-12 hex) in the name field", () => {
    // dist/apis/consumer/fetch-v12.js writes the consumer's topicId, which Metadata v10+ gave it, as the topic name;
    // it matches the answer by the same string. A server answering it must resolve and echo that name.
    const request = decodeRequest(capturedFrames("platformatic").get("Fetch v12")!);
    if (!("body" in request) || request.api !== "Fetch") throw new Error("not decoded");
    expect(request.body.topics.map((t) => t.topic)).toEqual([uuidAsText(new ToyBroker().topicId("plt"))]);
    expect(request.body.clusterId).toBeNull();
  });

  test("its Fetch v13 request names the topic by its id (TopicId, a Uuid), as Metadata gave it", () => {
    const request = decodeRequest(capturedFrames("platformatic").get("Fetch v13")!);
    if (!("body" in request) || request.api !== "Fetch") throw new Error("not decoded");
    expect(request.body.topics.map((t) => [t.topic, t.topicId])).toEqual([["", new ToyBroker().topicId("plt")]]);
    expect(request.body.topics[0]!.partitions).toMatchObject([{ partition: 0, fetchOffset: 0n }]);
    expect(request.body.forgottenTopicsData).toEqual([]);
    expect(request.body.clusterId).toBeNull();
  });

  test("its KIP-848 requests carry the member's epoch: OffsetFetch v9 and OffsetCommit v9 as member, ConsumerGroupHeartbeat v1 joining", () => {
    const body = (name: string) => {
      const request = decodeRequest(capturedFrames("platformatic").get(name)!);
      if (!("body" in request)) throw new Error(`${name} not decoded`);
      return request.body as unknown as Record<string, unknown>;
    };
    expect(body("ConsumerGroupHeartbeat v1")).toMatchObject({ groupId: "plt-group", memberEpoch: 0, subscribedTopicNames: ["plt"] });
    expect(body("OffsetFetch v9")).toMatchObject({ groups: [{ groupId: "plt-group", memberEpoch: 1, topics: [{ name: "plt" }] }] });
    expect(body("OffsetCommit v9")).toMatchObject({ groupId: "plt-group", generationIdOrMemberEpoch: 1 });
  });
});

describe("the toy broker's Fetch, through @platformatic/kafka 1.35.0's own connection and fetch APIs", () => {
  let broker: ToyBroker | undefined;
  let connection: Connection | undefined;
  afterEach(async () => {
    await connection?.close();
    await broker?.stop();
    connection = undefined;
    broker = undefined;
  });

  /** A broker whose topic "plt" holds two records (produced by the client), and a connection to it. */
  async function brokerWithRecords(): Promise<{ broker: ToyBroker; connection: Connection; uuid: string }> {
    broker = await new ToyBroker({ topics: { plt: 1 } }).start();
    const producer = new Producer({ clientId: "kcsim-wire-test", bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers });
    try {
      await producer.send({
        messages: [
          { topic: "plt", partition: 0, key: "a", value: "one" },
          { topic: "plt", partition: 0, key: "b", value: "two" },
        ],
      });
    } finally {
      await producer.close();
    }
    connection = new Connection("kcsim-wire-test");
    await connection.connect("127.0.0.1", broker.port);
    return { broker, connection, uuid: uuidAsText(broker.topicId("plt")) };
  }

  const partitions = [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 }];
  const values = (batches: { records: { value: Buffer | null }[] }[] | undefined) =>
    (batches ?? []).flatMap((b) => b.records.map((r) => r.value?.toString()));

  test("v13: the topic by its id, the answer by the same id", async () => {
    const { broker, connection, uuid } = await brokerWithRecords();
    const response = await fetchV13.api.async(connection, 0, 1, 1 << 20, 0, 0, -1, [{ topicId: uuid, partitions }], [], "");
    expect(response.responses.map((t) => t.topicId)).toEqual([uuid]);
    const [partition] = response.responses[0]!.partitions;
    expect(partition).toMatchObject({ partitionIndex: 0, errorCode: 0, highWatermark: 2n, lastStableOffset: 2n, logStartOffset: 0n });
    expect(values(partition!.records)).toEqual(["one", "two"]);
    expect(broker.closeReasons).toEqual([]);
  });

  test("v13: an id the broker does not know is answered UNKNOWN_TOPIC_ID, as Kafka does", async () => {
    const { broker, connection } = await brokerWithRecords();
    const unknown = "00010203-0405-0607-0809-0a0b0c0d0e0f";
    const error = await fetchV13.api.async(connection, 0, 1, 1 << 20, 0, 0, -1, [{ topicId: unknown, partitions }], [], "").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResponseError);
    const response = (error as ResponseError & { response: Awaited<ReturnType<typeof fetchV13.api.async>> }).response;
    expect(response.responses).toEqual([
      {
        topicId: unknown,
        partitions: [
          {
            partitionIndex: 0,
            errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
            highWatermark: -1n,
            lastStableOffset: -1n,
            logStartOffset: -1n,
            abortedTransactions: [],
            preferredReadReplica: -1,
          },
        ],
      },
    ]);
    expect(broker.closeReasons).toEqual([]);
  });

  test("v12: still answered, by name, and by the id as text where the client puts it (see fetchedTopic)", async () => {
    const { broker, connection, uuid } = await brokerWithRecords();
    for (const named of ["plt", uuid]) {
      const response = await fetchV12.api.async(connection, 0, 1, 1 << 20, 0, 0, -1, [{ topicId: named, partitions }], [], "");
      expect(response.responses.map((t) => t.topicId)).toEqual([named]);
      const [partition] = response.responses[0]!.partitions;
      expect(partition).toMatchObject({ partitionIndex: 0, errorCode: 0, highWatermark: 2n });
      expect(values(partition!.records)).toEqual(["one", "two"]);
    }
    expect(broker.closeReasons).toEqual([]);
  });
});
