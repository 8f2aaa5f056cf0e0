import { gzipSync } from "node:zlib";
import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, test } from "vitest";
import {
  checkProduceRecords,
  crc32c,
  decodeRequest,
  decodeResponseBody,
  encodeRecordBatch,
  readRecordBatches,
  readTransactionMarker,
  transactionMarkerRecord,
  UNSUPPORTED_COMPRESSION_TYPE,
  WireError,
  type WireRecordBatch,
  withAssignedOffset,
} from "../src/index.js";
import { capturedFrames, hex, kafkajsFixtures } from "./support/fixtures.js";
import { sampleBatch as sample } from "./support/sample-batch.js";

const text = (bytes: Uint8Array | null) => (bytes === null ? null : Buffer.from(bytes).toString());

function producedRecords(client: "librdkafka" | "kafkajs-live", name: string): Uint8Array[] {
  const request = decodeRequest(capturedFrames(client).get(name)!);
  if (request.api !== "Produce" || !("body" in request)) throw new Error(`${name} is not a Produce`);
  return request.body.topicData.flatMap((t) => t.partitionData.map((p) => p.records!));
}

describe("CRC-32C", () => {
  test("check value and RFC 3720 (iSCSI) test vectors", () => {
    expect(crc32c(Buffer.from("123456789"))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
  });
});

describe("record batches from real clients", () => {
  test("librdkafka's batches (plain, idempotent, gzip) pass their CRC and re-encode", () => {
    const batches = ["Produce v3", "Produce v7", "Produce v7 gzip"]
      .flatMap((name) => producedRecords("librdkafka", name))
      .flatMap((r) => readRecordBatches(r));
    const values = batches.flatMap((b) => b.batch.records.map((r) => `${text(r.key)}=${text(r.value)}`));
    expect(values).toContain("k1=v1");
    expect(values).toContain(`k3=${"v3".repeat(100)}`);
    const gzip = batches.find((b) => b.batch.compression === "gzip");
    const idempotent = batches.find((b) => b.batch.producerId >= 0n);
    expect(gzip?.batch.records.map((r) => text(r.value))).toEqual(["v3".repeat(100)]);
    expect(idempotent?.batch).toMatchObject({ producerEpoch: 0, baseSequence: 0 });
    for (const { batch, bytes } of batches) {
      const reencoded = encodeRecordBatch(batch);
      // node:zlib's gzip stream differs from librdkafka's; the records inside must not.
      if (batch.compression === "none") expect(hex(reencoded)).toBe(hex(bytes));
      else expect(readRecordBatches(reencoded)[0]!.batch).toEqual(batch);
    }
  });

  test("KafkaJS's batches, with headers, pass their CRC and re-encode byte for byte", () => {
    const records = [...producedRecords("kafkajs-live", "Produce v7")];
    for (const [name, bytes] of kafkajsFixtures("Produce")) {
      const match = /^v([3-7])_request$/.exec(name);
      if (match) records.push(...decodeRequestBodyRecords(Number(match[1]), bytes));
    }
    const batches = records.flatMap((r) => readRecordBatches(r));
    expect(batches.length).toBeGreaterThan(5);
    for (const { batch, bytes } of batches) expect(hex(encodeRecordBatch(batch))).toBe(hex(bytes));
    const live = readRecordBatches(producedRecords("kafkajs-live", "Produce v7")[0]!)[0]!.batch;
    expect(live.records[0]!.headers.map((h) => [h.key, text(h.value)])).toEqual([["h", "x"]]);
  });

  test("a real broker's gzip fetch response (KafkaJS fixture) decodes", () => {
    const response = decodeResponseBody("Fetch", 4, kafkajsFixtures("Fetch").get("v4_response_gzip")!);
    const batches = readRecordBatches(response.responses[0]!.partitions[0]!.records!);
    expect(batches.map((b) => b.batch.compression)).toEqual(["gzip", "gzip"]);
    expect(batches.flatMap((b) => b.batch.records).length).toBe(6);
  });
});

function decodeRequestBodyRecords(version: number, body: Uint8Array): Uint8Array[] {
  const frame = Buffer.concat([Buffer.from([0, 0, 0, version, 0, 0, 0, 1, 0xff, 0xff]), body]);
  const request = decodeRequest(frame);
  if (request.api !== "Produce" || !("body" in request)) throw new Error("not a Produce");
  return request.body.topicData.flatMap((t) => t.partitionData.map((p) => p.records!));
}

describe("encoding and checks", () => {
  test("none and gzip round-trip", () => {
    for (const compression of ["none", "gzip"] as const) {
      const batch = { ...sample, compression };
      expect(readRecordBatches(encodeRecordBatch(batch))[0]!.batch).toEqual(batch);
    }
  });

  test("a transaction marker batch round-trips", () => {
    const marker: WireRecordBatch = {
      ...sample,
      isTransactional: true,
      isControl: true,
      lastOffsetDelta: 0,
      producerId: 4000n,
      producerEpoch: 3,
      records: [transactionMarkerRecord({ type: "COMMIT", coordinatorEpoch: 7 })],
    };
    const bytes = encodeRecordBatch(marker);
    const [decoded] = readRecordBatches(bytes);
    expect(decoded!.batch).toEqual(marker);
    expect(hex(encodeRecordBatch(decoded!.batch))).toBe(hex(bytes));
    expect(readTransactionMarker(decoded!.batch.records[0]!)).toEqual({ type: "COMMIT", coordinatorEpoch: 7 });
  });

  test("assigning offsets keeps the CRC valid", () => {
    const moved = withAssignedOffset(encodeRecordBatch(sample), 1234n, 9);
    expect(readRecordBatches(moved)[0]!.batch).toMatchObject({ baseOffset: 1234n, partitionLeaderEpoch: 9 });
  });

  test("a flipped byte is caught by the CRC", () => {
    const bytes = encodeRecordBatch(sample);
    bytes[bytes.length - 1]! ^= 0x01;
    expect(() => readRecordBatches(bytes)).toThrow(WireError);
    expect(() => readRecordBatches(bytes)).toThrow(/^corrupt-batch: .*CRC-32C/);
  });

  test("legacy message sets and unsupported codecs are rejected cleanly", () => {
    const legacy = decodeResponseBody("Fetch", 4, kafkajsFixtures("Fetch").get("v4_response_010_format")!).responses[0]!.partitions[0]!
      .records!;
    expect(() => readRecordBatches(legacy)).toThrow(/^unsupported-magic: a message set of magic 1/);
    const snappy = decodeResponseBody("Fetch", 4, kafkajsFixtures("Fetch").get("v4_response_snappy")!).responses[0]!.partitions[0]!
      .records!;
    expect(() => readRecordBatches(snappy)).toThrow(/^unsupported-compression: snappy/);
  });

  test("a fetch response may end in a partial batch; a produce may not", () => {
    const bytes = Buffer.concat([encodeRecordBatch(sample), encodeRecordBatch(sample).subarray(0, 40)]);
    expect(readRecordBatches(bytes, { allowPartialTail: true })).toHaveLength(1);
    expect(() => readRecordBatches(bytes)).toThrow(/^truncated/);
  });

  test("a gzip bomb stops at the decompression limit", () => {
    const bomb = gzipSync(new Uint8Array(10_000_000));
    const batch = Buffer.from(encodeRecordBatch({ ...sample, compression: "gzip" }));
    const forged = Buffer.concat([batch.subarray(0, 61), bomb]);
    forged.writeInt32BE(forged.length - 12, 8);
    forged.writeUInt32BE(crc32c(forged.subarray(21)), 17);
    expect(() => readRecordBatches(forged, { maxUncompressedBytes: 1_000_000 })).toThrow(
      /^invalid-length: gzip records do not decompress within 1000000 bytes/,
    );
  });

  test("Produce record checks give Kafka's per-partition error codes", () => {
    const ok = checkProduceRecords(7, encodeRecordBatch(sample));
    expect(ok.ok).toBe(true);
    const two = Buffer.concat([encodeRecordBatch(sample), encodeRecordBatch(sample)]);
    expect(checkProduceRecords(7, two)).toMatchObject({ ok: false, errorCode: ErrorCode.INVALID_RECORD });
    expect(checkProduceRecords(7, null)).toMatchObject({ ok: false, errorCode: ErrorCode.INVALID_RECORD });
    const corrupt = encodeRecordBatch(sample);
    corrupt[70]! ^= 0xff;
    expect(checkProduceRecords(7, corrupt)).toMatchObject({ ok: false, errorCode: ErrorCode.CORRUPT_MESSAGE });
    const control = encodeRecordBatch({
      ...sample,
      isControl: true,
      isTransactional: true,
      lastOffsetDelta: 0,
      records: [transactionMarkerRecord({ type: "ABORT", coordinatorEpoch: 0 })],
    });
    expect(checkProduceRecords(7, control)).toMatchObject({ ok: false, errorCode: ErrorCode.INVALID_RECORD });
    expect(checkProduceRecords(7, encodeRecordBatch({ ...sample, lastOffsetDelta: 5 }))).toMatchObject({
      ok: false,
      errorCode: ErrorCode.INVALID_RECORD,
    });
    const snappy = Buffer.from(encodeRecordBatch(sample));
    snappy.writeInt16BE(2, 21);
    snappy.writeUInt32BE(crc32c(snappy.subarray(21)), 17);
    expect(checkProduceRecords(7, snappy)).toMatchObject({ ok: false, errorCode: UNSUPPORTED_COMPRESSION_TYPE });
    const legacy = decodeResponseBody("Fetch", 4, kafkajsFixtures("Fetch").get("v4_response_010_format")!).responses[0]!.partitions[0]!
      .records!;
    expect(checkProduceRecords(3, legacy)).toMatchObject({ ok: false, errorCode: ErrorCode.INVALID_RECORD });
  });
});
