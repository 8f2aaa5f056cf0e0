import type { WireRecordBatch } from "../../src/index.js";

const utf8 = (s: string) => new TextEncoder().encode(s);

/** A small uncompressed batch of two records (one with a header), for tests that need any valid batch. */
export const sampleBatch: WireRecordBatch = {
  baseOffset: 0n,
  partitionLeaderEpoch: -1,
  compression: "none",
  timestampType: "create-time",
  isTransactional: false,
  isControl: false,
  hasDeleteHorizonMs: false,
  lastOffsetDelta: 1,
  baseTimestamp: 1_700_000_000_000n,
  maxTimestamp: 1_700_000_000_005n,
  producerId: -1n,
  producerEpoch: -1,
  baseSequence: -1,
  records: [
    { attributes: 0, timestampDelta: 0n, offsetDelta: 0, key: null, value: utf8("a"), headers: [] },
    { attributes: 0, timestampDelta: 5n, offsetDelta: 1, key: utf8("k"), value: null, headers: [{ key: "h", value: null }] },
  ],
};
