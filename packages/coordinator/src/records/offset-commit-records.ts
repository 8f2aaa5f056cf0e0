import type { CommittedOffset } from "../offsets/offset-store.js";
import { type OffsetCommitRecord, RecordType } from "./coordinator-record.js";

/** Kafka's `newOffsetCommitRecord`. */
export function offsetCommitRecord(group: string, topic: string, partition: number, offset: CommittedOffset): OffsetCommitRecord {
  return {
    type: RecordType.OffsetCommit,
    key: { group, topic, partition },
    value: {
      offset: offset.offset,
      leaderEpoch: offset.leaderEpoch,
      metadata: offset.metadata,
      commitTimestamp: offset.commitTimestampMs,
      expireTimestamp: offset.expireTimestampMs,
    },
  };
}

/** Kafka's `newOffsetCommitTombstoneRecord` (offset deletion and expiration: later issues). */
export function offsetCommitTombstone(group: string, topic: string, partition: number): OffsetCommitRecord {
  return { type: RecordType.OffsetCommit, key: { group, topic, partition }, value: null };
}
