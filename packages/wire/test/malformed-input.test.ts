import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  API_LIST,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  FrameSplitter,
  readRecordBatches,
  WireError,
  WireServerConnection,
} from "../src/index.js";
import { CAPTURED_CLIENTS, capturedFrames } from "./support/fixtures.js";

function errorOf(run: () => unknown): WireError {
  try {
    run();
  } catch (error) {
    if (error instanceof WireError) return error;
    throw new Error(`threw something other than a WireError: ${String(error)}`);
  }
  throw new Error("did not throw");
}

const heartbeat = (clientId = "c") =>
  encodeRequest(
    "Heartbeat",
    { apiVersion: 3, correlationId: 9, clientId },
    { groupId: "g", generationId: 1, memberId: "m", groupInstanceId: null },
  ).subarray(4);

describe("each malformed class gives its typed error", () => {
  test("a truncated frame", () => {
    const whole = heartbeat();
    expect(errorOf(() => decodeRequest(whole.subarray(0, 5))).kind).toBe("truncated");
    const cut = errorOf(() => decodeRequest(whole.subarray(0, whole.length - 2)));
    expect(cut.kind).toBe("truncated");
    expect(cut.context).toMatchObject({ apiKey: 12, apiVersion: 3, correlationId: 9 });
    expect(cut.message).toMatch(/HeartbeatRequest\.groupInstanceId/);
  });

  test("an unknown API key and an unsupported version carry the header for the server", () => {
    const unknown = Buffer.from(heartbeat());
    unknown.writeInt16BE(1000, 0);
    expect(errorOf(() => decodeRequest(unknown))).toMatchObject({ kind: "unknown-api-key", context: { apiKey: 1000, correlationId: 9 } });
    const tooNew = Buffer.from(heartbeat());
    tooNew.writeInt16BE(4, 2);
    expect(errorOf(() => decodeRequest(tooNew))).toMatchObject({ kind: "unsupported-version", context: { apiKey: 12, apiVersion: 4 } });
    const fetchV3 = Buffer.from(capturedFrames("librdkafka").get("Fetch v4")!);
    fetchV3.writeInt16BE(3, 2);
    expect(errorOf(() => decodeRequest(fetchV3)).message).toMatch(/Fetch v3 is not supported \(v4-13 are\)/);
  });

  test("negative sizes", () => {
    const negativeString = Buffer.from(heartbeat());
    negativeString.writeInt16BE(-5, 11); // the group id's length, after apiKey, version, correlation id and client id "c"
    expect(errorOf(() => decodeRequest(negativeString))).toMatchObject({ kind: "invalid-length" });
    const nullGroup = Buffer.from(heartbeat());
    nullGroup.writeInt16BE(-1, 11);
    expect(errorOf(() => decodeRequest(nullGroup)).message).toMatch(/groupId is null, which v3 does not allow/);
    const splitter = new FrameSplitter();
    expect(errorOf(() => splitter.push(Uint8Array.of(0xff, 0xff, 0xff, 0xfe))).kind).toBe("invalid-length");
  });

  test("absurd lengths fail before anything is allocated", () => {
    const join = Buffer.from(capturedFrames("librdkafka").get("JoinGroup v5")!);
    // The protocols array count sits right after the protocol type "consumer"; claim 2^31-1 elements.
    const at = join.indexOf(Buffer.from("consumer")) + "consumer".length;
    join.writeInt32BE(0x7fffffff, at);
    const error = errorOf(() => decodeRequest(join));
    expect(error.kind).toBe("invalid-length");
    expect(error.message).toMatch(/2147483647 elements/);
    const splitter = new FrameSplitter(1024);
    expect(errorOf(() => splitter.push(Uint8Array.of(0x7f, 0xff, 0xff, 0xff))).kind).toBe("frame-too-large");
    const batch = new Uint8Array(70);
    new DataView(batch.buffer).setInt32(8, 0x7ffffff0);
    batch[16] = 2;
    expect(errorOf(() => readRecordBatches(batch)).kind).toBe("truncated");
  });

  test("bytes after the body, and a varint longer than its type", () => {
    expect(errorOf(() => decodeRequest(Buffer.concat([heartbeat(), Buffer.of(0)]))).kind).toBe("trailing-bytes");
    const cghb = encodeRequest(
      "ConsumerGroupHeartbeat",
      { apiVersion: 0, correlationId: 1, clientId: "c" },
      {
        groupId: "g",
        memberId: "m",
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 1,
        subscribedTopicNames: null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: null,
      },
    ).subarray(4);
    const bad = Buffer.concat([cghb.subarray(0, 12), Buffer.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x01), cghb.subarray(13)]);
    expect(errorOf(() => decodeRequest(bad)).kind).toBe("malformed");
  });

  test("unknown tagged fields are skipped, kept, and written back", () => {
    const frame = encodeResponse("ApiVersions", 3, 1, {
      errorCode: 0,
      apiKeys: [],
      throttleTimeMs: 0,
      supportedFeatures: [],
      finalizedFeaturesEpoch: 5n,
      finalizedFeatures: [],
      zkMigrationReady: true,
    });
    // The body after the correlation id: errorCode(2) apiKeys(1: empty) throttle(4), then the tag count (2 known tags).
    // Raise the count to 3 and append an unknown tag 9 of 3 bytes.
    const body = Buffer.from(frame.subarray(4));
    const countAt = 4 + 2 + 1 + 4;
    expect(body[countAt]).toBe(2);
    const withUnknown = Buffer.concat([
      body.subarray(0, countAt),
      Buffer.of(3),
      body.subarray(countAt + 1),
      Buffer.of(9, 3, 0xaa, 0xbb, 0xcc),
    ]);
    const decoded = decodeResponse("ApiVersions", 3, withUnknown);
    expect(decoded.body).toMatchObject({ finalizedFeaturesEpoch: 5n, zkMigrationReady: true });
    expect(decoded.body._unknownTaggedFields).toEqual([{ tag: 9, data: Uint8Array.of(0xaa, 0xbb, 0xcc) }]);
    expect(Buffer.from(encodeResponse("ApiVersions", 3, 1, decoded.body).subarray(4)).equals(withUnknown)).toBe(true);
  });
});

describe("fuzz: nothing but WireError ever escapes", () => {
  const seeds = CAPTURED_CLIENTS.flatMap((client) => [...capturedFrames(client).values()]);
  const onlyWireErrors = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
    }
  };

  test("random frames", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => onlyWireErrors(() => decodeRequest(bytes))),
      { numRuns: 2000 },
    );
  });

  test("random header + random body for every API and version", () => {
    const apiVersion = fc.oneof(
      ...API_LIST.map((api) => fc.tuple(fc.constant(api.key), fc.integer({ min: api.minVersion - 1, max: api.maxVersion + 1 }))),
    );
    fc.assert(
      fc.property(apiVersion, fc.uint8Array({ maxLength: 200 }), ([key, version], body) => {
        const header = Buffer.alloc(10);
        header.writeInt16BE(key, 0);
        header.writeInt16BE(version, 2);
        header.writeInt16BE(-1, 8);
        onlyWireErrors(() => decodeRequest(Buffer.concat([header, body])));
      }),
      { numRuns: 3000 },
    );
  });

  test("mutated real frames: flipped bytes, cuts, insertions", () => {
    const mutation = fc.record({
      seed: fc.integer({ min: 0, max: seeds.length - 1 }),
      at: fc.nat(),
      value: fc.integer({ min: 0, max: 255 }),
      kind: fc.constantFrom("flip", "cut", "insert", "set"),
    });
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (mutations) => {
        let bytes = Buffer.from(seeds[mutations[0]!.seed]!);
        for (const m of mutations) {
          const at = m.at % Math.max(1, bytes.length);
          if (m.kind === "flip") bytes[at]! ^= 1 << (m.value % 8);
          else if (m.kind === "set") bytes[at] = m.value;
          else if (m.kind === "cut") bytes = bytes.subarray(0, at);
          else bytes = Buffer.concat([bytes.subarray(0, at), Buffer.of(m.value), bytes.subarray(at)]);
        }
        onlyWireErrors(() => {
          const request = decodeRequest(bytes);
          if (request.api === "Produce" && "body" in request)
            for (const t of request.body.topicData) for (const p of t.partitionData) if (p.records) readRecordBatches(p.records);
        });
      }),
      { numRuns: 3000 },
    );
  });

  test("random responses for every API and version", () => {
    const pick = fc.oneof(
      ...API_LIST.map((api) => fc.tuple(fc.constant(api.name), fc.integer({ min: api.minVersion, max: api.maxVersion }))),
    );
    fc.assert(
      fc.property(pick, fc.uint8Array({ maxLength: 200 }), ([name, version], bytes) =>
        onlyWireErrors(() => decodeResponse(name, version, bytes)),
      ),
      { numRuns: 2000 },
    );
  });

  test("a connection fed random chunks never throws and closes with a WireError", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (chunks) => {
        const closes: unknown[] = [];
        const connection = new WireServerConnection(
          { send: () => {}, request: () => connection.noResponse(), close: (reason) => closes.push(reason) },
          { maxFrameBytes: 4096 },
        );
        for (const chunk of chunks) connection.receive(chunk);
        for (const reason of closes) expect(reason).toBeInstanceOf(WireError);
      }),
      { numRuns: 1000 },
    );
  });
});
