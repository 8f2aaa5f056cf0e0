import type { Static } from "@sinclair/typebox";
import { Bool, Int, List, Nullable, Str, Struct } from "./schema.js";

/**
 * A record batch as the log stores it and Fetch/Produce carry it (Kafka's
 * `DefaultRecordBatch`). Payloads are simulated: `value` is a short tag the
 * checkers use to follow a record, `sizeInBytes` is the size Kafka would
 * account for (fetch sizing, bandwidth), not the size of this object.
 */
export const SimRecord = Struct({
  offsetDelta: Int,
  timestampDelta: Int,
  key: Nullable(Str),
  value: Nullable(Str),
  sizeInBytes: Int,
});
export type SimRecord = Static<typeof SimRecord>;

/** Control record keys (Kafka's `ControlRecordType`). */
export const ControlRecordType = { ABORT: "ABORT", COMMIT: "COMMIT" } as const;

/** `RecordBatch.NO_PRODUCER_ID` etc. */
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;

export const RecordBatch = Struct({
  baseOffset: Int,
  lastOffsetDelta: Int,
  partitionLeaderEpoch: Int,
  sizeInBytes: Int,
  baseTimestamp: Int,
  producerId: Int,
  producerEpoch: Int,
  baseSequence: Int,
  isTransactional: Bool,
  isControl: Bool,
  records: List(SimRecord),
});
export type RecordBatch = Static<typeof RecordBatch>;
