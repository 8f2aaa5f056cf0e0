import { describe, expect, test } from "vitest";
import {
  API_BY_KEY,
  API_LIST,
  type ApiName,
  decodeRequest,
  decodeRequestBody,
  decodeResponseBody,
  encodeRequest,
  encodeRequestBody,
  encodeResponseBody,
  frame,
  type WireRequest,
} from "../src/index.js";
import { CAPTURED_CLIENTS, capturedFrames, hex, kafkajsFixtures } from "./support/fixtures.js";

/**
 * Golden bytes from sources independent of this package:
 *  - fixtures/kafkajs: KafkaJS 2.2.4's own protocol fixtures (request bodies
 *    its encoders wrote, response bodies captured from real brokers);
 *  - fixtures/librdkafka, fixtures/kafkajs-live, fixtures/platformatic: whole
 *    request frames the real clients (librdkafka 2.0.2, KafkaJS 2.2.4,
 *    @platformatic/kafka 1.35.0) sent to the toy broker (test/client-capture.test.ts).
 * Each must decode and re-encode to exactly the same bytes. Versions no
 * installed client sends have golden bytes written from the spec
 * (spec-golden-bytes.test.ts, consumer-group-heartbeat.test.ts).
 */
const KAFKAJS_APIS = API_LIST.map((api) => api.name).filter((name) => name !== "ConsumerGroupHeartbeat");

describe("KafkaJS 2.2.4 fixtures", () => {
  for (const api of KAFKAJS_APIS) {
    const fixtures = [...kafkajsFixtures(api)].filter(([name]) => /^v\d+_(request|response)$/.test(name));
    test.each(fixtures)(`${api} %s decodes and re-encodes byte for byte`, (name, bytes) => {
      const [, v, side] = /^v(\d+)_(request|response)$/.exec(name)!;
      const version = Number(v);
      const encoded =
        side === "request"
          ? encodeRequestBody(api, version, decodeRequestBody(api, version, bytes) as never)
          : encodeResponseBody(api, version, decodeResponseBody(api, version, bytes) as never);
      expect(hex(encoded)).toBe(hex(bytes));
    });
  }

  test("decoded values match what KafkaJS's own specs say they hold", () => {
    const heartbeat = decodeRequestBody("Heartbeat", 3, kafkajsFixtures("Heartbeat").get("v3_request")!);
    expect(heartbeat.groupId).toBe("consumer-group-id-4c456000151f094b600d-26762-fd6a6ae7-3f66-408e-802e-d261d6983d0d");
    expect(heartbeat.generationId).toBe(1);
    expect(heartbeat.groupInstanceId).toBe(heartbeat.memberId);
    const fetch = decodeResponseBody("Fetch", 11, kafkajsFixtures("Fetch").get("v11_response")!);
    const partition = fetch.responses[0]!.partitions[0]!;
    expect([partition.highWatermark, partition.lastStableOffset, partition.preferredReadReplica]).toEqual([3n, 3n, 0]);
    const apiVersions = decodeResponseBody("ApiVersions", 0, kafkajsFixtures("ApiVersions").get("v0_response")!);
    expect(apiVersions.apiKeys.find((k) => k.apiKey === 0)).toMatchObject({ minVersion: 0 });
  });

  test("a v1 ApiVersions answer without its throttle time (a broker quirk KafkaJS works around) is truncated at v1 and fine at v0", () => {
    const bytes = kafkajsFixtures("ApiVersions").get("v1_response_missing_throttle_time")!;
    expect(() => decodeResponseBody("ApiVersions", 1, bytes)).toThrow(/truncated/);
    expect(decodeResponseBody("ApiVersions", 0, bytes).errorCode).toBe(0);
  });
});

function reencode(request: WireRequest): Uint8Array {
  const { apiVersion, correlationId, clientId } = request.header;
  return encodeRequest(request.api, { apiVersion, correlationId, clientId }, request.body as never);
}

describe.each(CAPTURED_CLIENTS)("request frames captured from %s", (client) => {
  const frames = [...capturedFrames(client)];
  test.each(frames)("%s decodes and re-encodes byte for byte", (name, payload) => {
    const request = decodeRequest(payload);
    if ("unsupportedVersion" in request) throw new Error(`${name} is not a supported version`);
    expect(name.startsWith(`${request.api} v${request.header.apiVersion}`)).toBe(true);
    expect(request.header.clientId).toBe(client === "librdkafka" ? "rdkafka" : "kcsim-wire-test");
    expect(hex(reencode(request))).toBe(hex(frame(payload)));
  });
});

describe("coverage", () => {
  const sources = new Map<string, string[]>();
  const note = (key: string, source: string) => sources.set(key, [...(sources.get(key) ?? []), source]);
  for (const api of KAFKAJS_APIS) {
    for (const name of kafkajsFixtures(api).keys()) {
      const match = /^v(\d+)_request$/.exec(name);
      if (match) note(`${api} v${match[1]}`, "kafkajs fixture");
    }
  }
  for (const client of CAPTURED_CLIENTS) for (const name of capturedFrames(client).keys()) note(name, client);

  // No installed client sends these (KafkaJS 2.2.4 and librdkafka 2.0.2 stop below them,
  // @platformatic/kafka 1.35.0 starts above them), so their golden bytes are written from
  // the spec in spec-golden-bytes.test.ts:
  //  - CreateTopics v4 has v3's layout (KIP-464 changed only what -1 means);
  //  - Metadata v7 and v8: KafkaJS stops at v6, librdkafka at v4, @platformatic/kafka starts at v9;
  //  - Metadata v11: @platformatic/kafka's v11 request still carries v10's IncludeClusterAuthorizedOperations
  //    (dist/apis/metadata/metadata-v11.js), so its bytes are no v11 request: they are kept under "rejected"
  //    in fixtures/platformatic/requests.json (platformatic-client.test.ts reads them as v10);
  //  - FindCoordinator v3: the others stop at v2, @platformatic/kafka starts at v4;
  //  - ListOffsets v4: KafkaJS stops at v3, @platformatic/kafka starts at v5.
  const WITHOUT_CLIENT_BYTES = new Set([
    "CreateTopics v4",
    "Metadata v7",
    "Metadata v8",
    "Metadata v11",
    "FindCoordinator v3",
    "ListOffsets v4",
  ]);

  test("every supported request version has client bytes, apart from the ones listed", () => {
    const missing: string[] = [];
    for (const api of API_LIST) {
      for (let v = api.minVersion; v <= api.maxVersion; v++) {
        const key = `${api.name} v${v}`;
        if (!sources.has(key) && !WITHOUT_CLIENT_BYTES.has(key)) missing.push(key);
      }
    }
    expect(missing).toEqual([]);
  });

  test("the exemption list names only supported versions without client bytes", () => {
    const supported = new Set(
      API_LIST.flatMap((api) =>
        Array.from({ length: api.maxVersion - api.minVersion + 1 }, (_, i) => `${api.name} v${api.minVersion + i}`),
      ),
    );
    for (const key of WITHOUT_CLIENT_BYTES) {
      expect(supported.has(key)).toBe(true);
      expect(sources.has(key)).toBe(false);
    }
  });

  test("CreateTopics v4 reads KafkaJS's v3 request bytes the same way", () => {
    const payload = capturedFrames("kafkajs-live").get("CreateTopics v3")!;
    const v3 = decodeRequest(payload);
    const asV4 = Buffer.from(payload);
    asV4.writeInt16BE(4, 2);
    const v4 = decodeRequest(asV4);
    expect("body" in v4 && "body" in v3 && v4.body).toEqual("body" in v3 && v3.body);
  });

  test("API keys are Kafka's", () => {
    const keys = Object.fromEntries(API_LIST.map((api) => [api.name, api.key])) as Record<ApiName, number>;
    expect(keys).toEqual({
      Produce: 0,
      Fetch: 1,
      ListOffsets: 2,
      Metadata: 3,
      OffsetCommit: 8,
      OffsetFetch: 9,
      FindCoordinator: 10,
      JoinGroup: 11,
      Heartbeat: 12,
      LeaveGroup: 13,
      SyncGroup: 14,
      ApiVersions: 18,
      CreateTopics: 19,
      InitProducerId: 22,
      ConsumerGroupHeartbeat: 68,
    });
    expect(API_BY_KEY.size).toBe(15);
  });
});
