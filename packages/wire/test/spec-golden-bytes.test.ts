import { describe, expect, test } from "vitest";
import { type ApiName, decodeRequest, decodeResponse, encodeRequest, encodeResponse, type WireResponseOf } from "../src/index.js";
import { hex } from "./support/fixtures.js";

// No installed client sends these versions (golden-bytes.test.ts lists them in
// WITHOUT_CLIENT_BYTES), so their golden bytes are written by hand, field by
// field, from Kafka's {Metadata,FindCoordinator,ListOffsets}{Request,Response}.json.
// Requests: header v1 (v2 when flexible: then a tagged-field count after the
// INT16 client id); responses: header v0 (v1 when flexible). Classic strings
// have an INT16 length and arrays an INT32 count; compact ones a uvarint n+1.

const bytes = (spaced: string) => Buffer.from(spaced.replaceAll(" ", ""), "hex");
const TOPIC_ID = "AAECAwQFBgcICQoLDA0ODw"; // Uuid bytes 00 01 .. 0f
const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";
const OMITTED = -2147483648; // authorized operations not asked for (Integer.MIN_VALUE)

interface RequestCase {
  readonly name: string;
  readonly frame: string;
  readonly api: ApiName;
  readonly version: number;
  readonly body: unknown;
}

const requests: RequestCase[] = [
  {
    name: "Metadata v7 request: one topic by name (v7 adds nothing to the request)",
    frame: [
      "00000018", // size 24
      "0003 0007 0000002a 0006 636c69656e74", // header v1: key 3, v7, correlation 42, client id "client"
      "00000001 0001 74", // Topics [{Name "t"}]
      "01", // AllowAutoTopicCreation true
    ].join(""),
    api: "Metadata",
    version: 7,
    body: {
      topics: [{ topicId: ZERO_UUID, name: "t" }],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    },
  },
  {
    name: "Metadata v8 request: all topics (null), asking for authorized operations",
    frame: [
      "00000017", // size 23
      "0003 0008 0000002a 0006 636c69656e74", // header v1
      "ffffffff", // Topics null: all topics
      "00", // AllowAutoTopicCreation false
      "01", // IncludeClusterAuthorizedOperations true (v8-10)
      "01", // IncludeTopicAuthorizedOperations true (v8+)
    ].join(""),
    api: "Metadata",
    version: 8,
    body: { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true },
  },
  {
    name: "Metadata v11 request: a topic by name, one by id (null name); no IncludeClusterAuthorizedOperations from v11",
    frame: [
      "0000003a", // size 58
      "0003 000b 0000002a 0006 636c69656e74 00", // header v2: key 3, v11, correlation 42, client id "client", no tags
      "03", // Topics: 2 entries
      "00000000000000000000000000000000 0274 00", // {TopicId zero, Name "t"} + entry tags
      "000102030405060708090a0b0c0d0e0f 00 00", // {TopicId 00..0f, Name null} + entry tags
      "01", // AllowAutoTopicCreation true
      "00", // IncludeTopicAuthorizedOperations false
      "00", // tags
    ].join(""),
    api: "Metadata",
    version: 11,
    body: {
      topics: [
        { topicId: ZERO_UUID, name: "t" },
        { topicId: TOPIC_ID, name: null },
      ],
      allowAutoTopicCreation: true,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    },
  },
  {
    name: "FindCoordinator v3 request: the first flexible version, still one key",
    frame: [
      "00000015", // size 21
      "000a 0003 0000002a 0006 636c69656e74 00", // header v2: key 10, v3
      "0267", // Key "g" (compact)
      "00", // KeyType 0 (group)
      "00", // tags
    ].join(""),
    api: "FindCoordinator",
    version: 3,
    body: { key: "g", keyType: 0, coordinatorKeys: [] },
  },
  {
    name: "ListOffsets v4 request: CurrentLeaderEpoch per partition",
    frame: [
      "00000030", // size 48
      "0002 0004 0000002a 0006 636c69656e74", // header v1: key 2, v4
      "ffffffff", // ReplicaId -1
      "01", // IsolationLevel 1 (read committed)
      "00000001 0001 74", // Topics [{Name "t", ...
      "00000001", // Partitions [{
      "00000000", // PartitionIndex 0
      "00000005", // CurrentLeaderEpoch 5 (v4+)
      "fffffffffffffffe", // Timestamp -2 (earliest)
    ].join(""),
    api: "ListOffsets",
    version: 4,
    body: {
      replicaId: -1,
      isolationLevel: 1,
      topics: [{ name: "t", partitions: [{ partitionIndex: 0, currentLeaderEpoch: 5, timestamp: -2n, maxNumOffsets: 1 }] }],
    },
  },
];

interface ResponseCase<N extends ApiName = ApiName> {
  readonly name: string;
  readonly frame: string;
  readonly api: N;
  readonly version: number;
  readonly body: WireResponseOf<N>;
}

const metadataBody = (version: 7 | 8): WireResponseOf<"Metadata"> => ({
  throttleTimeMs: 0,
  brokers: [{ nodeId: 0, host: "h", port: 9092, rack: null }],
  clusterId: "c",
  controllerId: 0,
  topics: [
    {
      errorCode: 0,
      name: "t",
      topicId: ZERO_UUID,
      isInternal: false,
      partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, leaderEpoch: 7, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] }],
      topicAuthorizedOperations: version === 8 ? 0xf8 : OMITTED,
    },
  ],
  clusterAuthorizedOperations: OMITTED,
});

const metadataResponse = (version: 7 | 8) =>
  [
    version === 7 ? "00000050" : "00000058", // size 80 (v7) or 88 (v8)
    "00000007", // header v0: correlation 7
    "00000000", // ThrottleTimeMs
    "00000001 00000000 0001 68 00002384 ffff", // Brokers [{NodeId 0, Host "h", Port 9092, Rack null}]
    "0001 63", // ClusterId "c"
    "00000000", // ControllerId 0
    "00000001 0000 0001 74 00", // Topics [{ErrorCode 0, Name "t", IsInternal false,
    "00000001 0000 00000000 00000000", //   Partitions [{ErrorCode 0, PartitionIndex 0, LeaderId 0,
    "00000007", //   LeaderEpoch 7 (v7+),
    "00000001 00000000 00000001 00000000 00000000", //   ReplicaNodes [0], IsrNodes [0], OfflineReplicas []}]
    version === 8 ? "000000f8" : "", //   TopicAuthorizedOperations 0xf8 (v8+)}]
    version === 8 ? "80000000" : "", // ClusterAuthorizedOperations omitted (v8-10)
  ].join("");

const responses: ResponseCase[] = [
  {
    name: "Metadata v7 response: the partition leader epoch",
    frame: metadataResponse(7),
    api: "Metadata",
    version: 7,
    body: metadataBody(7),
  },
  {
    name: "Metadata v8 response: topic and cluster authorized operations",
    frame: metadataResponse(8),
    api: "Metadata",
    version: 8,
    body: metadataBody(8),
  } satisfies ResponseCase<"Metadata">,
  {
    name: "FindCoordinator v3 response: flexible, one coordinator",
    frame: [
      "00000017", // size 23
      "00000007 00", // header v1: correlation 7, no tags
      "00000000", // ThrottleTimeMs
      "0000", // ErrorCode 0
      "00", // ErrorMessage null (compact)
      "00000001", // NodeId 1
      "0268", // Host "h"
      "00002384", // Port 9092
      "00", // tags
    ].join(""),
    api: "FindCoordinator",
    version: 3,
    body: { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 1, host: "h", port: 9092, coordinators: [] },
  } satisfies ResponseCase<"FindCoordinator">,
  {
    name: "ListOffsets v4 response: the leader epoch per partition",
    frame: [
      "0000002d", // size 45
      "00000007", // header v0: correlation 7
      "00000000", // ThrottleTimeMs
      "00000001 0001 74", // Topics [{Name "t",
      "00000001 00000000 0000", //   Partitions [{PartitionIndex 0, ErrorCode 0,
      "ffffffffffffffff", //   Timestamp -1
      "000000000000002a", //   Offset 42
      "00000005", //   LeaderEpoch 5 (v4+)}]}]
    ].join(""),
    api: "ListOffsets",
    version: 4,
    body: {
      throttleTimeMs: 0,
      topics: [
        { name: "t", partitions: [{ partitionIndex: 0, errorCode: 0, oldStyleOffsets: [], timestamp: -1n, offset: 42n, leaderEpoch: 5 }] },
      ],
    },
  } satisfies ResponseCase<"ListOffsets">,
];

describe("golden bytes written from the spec, for versions no installed client sends", () => {
  test.each(requests.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const frame = bytes(c.frame);
    expect(frame.readInt32BE(0)).toBe(frame.length - 4);
    const request = decodeRequest(frame.subarray(4));
    expect(request).toMatchObject({ api: c.api, header: { apiVersion: c.version, correlationId: 42, clientId: "client" } });
    if (!("body" in request)) throw new Error("not decoded");
    expect(request.body).toEqual(c.body);
    expect(hex(encodeRequest(request.api, request.header, request.body as never))).toBe(hex(frame));
  });

  test.each(responses.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    const frame = bytes(c.frame);
    expect(frame.readInt32BE(0)).toBe(frame.length - 4);
    const { correlationId, body } = decodeResponse(c.api, c.version, frame.subarray(4));
    expect(correlationId).toBe(7);
    expect(body).toEqual(c.body);
    expect(hex(encodeResponse(c.api, c.version, 7, body as never))).toBe(hex(frame));
  });

  test("v11 and v12 drop the cluster's authorized operations: a v11 request cannot ask for them", () => {
    const v8 = decodeRequest(bytes(requests[1]!.frame).subarray(4));
    if (!("body" in v8)) throw new Error("not decoded");
    expect(() => encodeRequest("Metadata", { ...v8.header, apiVersion: 11 }, v8.body as never)).toThrow(
      /includeClusterAuthorizedOperations has a non-default value that v11 cannot carry/,
    );
  });

  test("the leader epoch of a ListOffsets answer is not ignorable: v3 cannot carry one", () => {
    const body = responses[3]!.body;
    expect(() => encodeResponse("ListOffsets", 3, 7, body as never)).toThrow(/leaderEpoch has a non-default value that v3 cannot carry/);
  });
});
