import { ErrorCode } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  decodeResponse,
  encodeRecordBatch,
  encodeRequest,
  FrameSplitter,
  frame,
  SUPPORTED_API_VERSIONS,
  type WireError,
  type WireRequest,
  WireServerConnection,
} from "../src/index.js";
import { capturedFrames } from "./support/fixtures.js";
import { sampleBatch } from "./support/sample-batch.js";

describe("FrameSplitter", () => {
  test("any chunking of a stream gives the same frames", () => {
    const payloads = [...capturedFrames("librdkafka").values()].slice(0, 12);
    const stream = Buffer.concat(payloads.map(frame));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 60 }), (cuts) => {
        const splitter = new FrameSplitter();
        const out: Uint8Array[] = [];
        let at = 0;
        for (const cut of cuts) {
          out.push(...splitter.push(stream.subarray(at, Math.min(stream.length, at + cut))));
          at = Math.min(stream.length, at + cut);
        }
        out.push(...splitter.push(stream.subarray(at)));
        expect(out.map((p) => Buffer.from(p).toString("hex"))).toEqual(payloads.map((p) => Buffer.from(p).toString("hex")));
        expect(splitter.bufferedBytes).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  test("a frame above the maximum fails at its size prefix, and the splitter stays failed", () => {
    const splitter = new FrameSplitter(100);
    expect(splitter.push(frame(new Uint8Array(100)))).toHaveLength(1);
    expect(() => splitter.push(frame(new Uint8Array(101)).subarray(0, 4))).toThrow(
      /^frame-too-large: frame size 101 is above the 100-byte maximum/,
    );
    expect(() => splitter.push(new Uint8Array(1))).toThrow(/frame-too-large/);
  });
});

interface Harness {
  readonly connection: WireServerConnection;
  readonly sent: Uint8Array[];
  readonly requests: WireRequest[];
  readonly closed: WireError[];
}

function harness(answer?: (request: WireRequest, connection: WireServerConnection) => void, options = {}): Harness {
  const sent: Uint8Array[] = [];
  const requests: WireRequest[] = [];
  const closed: WireError[] = [];
  const connection: WireServerConnection = new WireServerConnection(
    {
      send: (bytes) => sent.push(bytes),
      request: (request) => {
        requests.push(request);
        answer?.(request, connection);
      },
      close: (reason) => closed.push(reason),
    },
    options,
  );
  return { connection, sent, requests, closed };
}

const heartbeat = (correlationId: number) =>
  encodeRequest(
    "Heartbeat",
    { apiVersion: 3, correlationId, clientId: "c" },
    { groupId: "g", generationId: 1, memberId: "m", groupInstanceId: null },
  );

describe("WireServerConnection", () => {
  test("answers librdkafka's ApiVersions v3 itself with exactly the supported table", () => {
    const h = harness();
    h.connection.receive(frame(capturedFrames("librdkafka").get("ApiVersions v3")!));
    expect(h.requests).toEqual([]);
    const { body } = decodeResponse("ApiVersions", 3, h.sent[0]!.subarray(4));
    expect(body.errorCode).toBe(0);
    expect(body.apiKeys).toEqual(SUPPORTED_API_VERSIONS);
  });

  test("ApiVersions at a version it does not know gets UNSUPPORTED_VERSION in a v0 response with a v0 header", () => {
    const h = harness();
    const v9 = Buffer.from(capturedFrames("librdkafka").get("ApiVersions v3")!);
    v9.writeInt16BE(9, 2);
    h.connection.receive(frame(v9));
    const response = h.sent[0]!;
    expect(response.length).toBe(4 + 4 + 2 + 4 + 6); // size, correlation id, error code, one-entry array
    const { correlationId, body } = decodeResponse("ApiVersions", 0, response.subarray(4));
    expect(correlationId).toBe(v9.readInt32BE(4));
    expect(body).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }] });
    expect(h.closed).toEqual([]);
  });

  test("ApiVersions v3 with a client software name outside KIP-511's pattern gets INVALID_REQUEST", () => {
    const h = harness();
    h.connection.receive(
      encodeRequest(
        "ApiVersions",
        { apiVersion: 3, correlationId: 1, clientId: "c" },
        { clientSoftwareName: "bad name!", clientSoftwareVersion: "1" },
      ),
    );
    expect(decodeResponse("ApiVersions", 3, h.sent[0]!.subarray(4)).body.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  test("one request at a time: the next frame waits until the previous one is answered", () => {
    const h = harness();
    h.connection.receive(Buffer.concat([heartbeat(1), heartbeat(2), heartbeat(3)]));
    expect(h.requests.map((r) => r.header.correlationId)).toEqual([1]);
    expect(h.connection.queuedFrames).toBe(2);
    h.connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 });
    expect(h.requests.map((r) => r.header.correlationId)).toEqual([1, 2]);
    h.connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 });
    h.connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 });
    expect(h.sent.map((bytes) => decodeResponse("Heartbeat", 3, bytes.subarray(4)).correlationId)).toEqual([1, 2, 3]);
    expect(() => h.connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 })).toThrow(/no request in flight/);
  });

  test("a server that answers at once (re-entrantly) drains the queue in order", () => {
    const h = harness((_request, connection) => connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 }));
    h.connection.receive(Buffer.concat([heartbeat(1), heartbeat(2), heartbeat(3)]));
    expect(h.sent).toHaveLength(3);
    expect(h.connection.inFlight).toBeUndefined();
  });

  test("a bad frame behind good ones closes the connection only once the good ones are answered", () => {
    const h = harness();
    const unknown = Buffer.from(heartbeat(3));
    unknown.writeInt16BE(77, 4);
    h.connection.receive(Buffer.concat([heartbeat(1), heartbeat(2), unknown, heartbeat(4)]));
    h.connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 });
    expect(h.closed).toEqual([]);
    h.connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 });
    expect(h.closed.map((e) => e.kind)).toEqual(["unknown-api-key"]);
    expect(h.requests).toHaveLength(2);
    h.connection.receive(heartbeat(5));
    expect(h.requests).toHaveLength(2);
  });

  test("an unsupported version, a malformed body and an oversized frame close the connection", () => {
    const tooNew = Buffer.from(heartbeat(1));
    tooNew.writeInt16BE(4, 6);
    const cut = heartbeat(1).subarray(0, 20);
    new DataView(cut.buffer, cut.byteOffset).setInt32(0, 16);
    const oversized = Buffer.alloc(8);
    oversized.writeInt32BE(2048, 0);
    for (const [bytes, kind] of [
      [tooNew, "unsupported-version"],
      [cut, "truncated"],
      [oversized, "frame-too-large"],
    ] as const) {
      const h = harness(undefined, { maxFrameBytes: 1024 });
      h.connection.receive(bytes);
      expect(h.closed.map((e) => e.kind)).toEqual([kind]);
      expect(h.connection.closed).toBe(true);
    }
  });

  test("an acks=0 Produce gets no response; if it failed, the connection is closed", () => {
    const records = encodeRecordBatch(sampleBatch);
    const produce = (correlationId: number) =>
      encodeRequest(
        "Produce",
        { apiVersion: 7, correlationId, clientId: "c" },
        { transactionalId: null, acks: 0, timeoutMs: 100, topicData: [{ name: "t", partitionData: [{ index: 0, records }] }] },
      );
    const response = (errorCode: number) => ({
      throttleTimeMs: 0,
      responses: [{ name: "t", partitionResponses: [{ index: 0, errorCode, baseOffset: 0n, logAppendTimeMs: -1n, logStartOffset: 0n }] }],
    });
    const h = harness();
    h.connection.receive(Buffer.concat([produce(1), produce(2)]));
    h.connection.respond("Produce", response(0));
    expect(h.sent).toEqual([]);
    expect(h.requests).toHaveLength(2);
    h.connection.respond("Produce", response(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    expect(h.sent).toEqual([]);
    expect(h.closed).toHaveLength(1);
  });
});
