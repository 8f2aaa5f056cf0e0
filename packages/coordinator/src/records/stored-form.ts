import { type OffsetCommitRecord, RecordType, type StoredRecord } from "./coordinator-record.js";

/** The first item of a stored OffsetCommit row (no record is an array, so nothing else reads as one). */
const OFFSET_COMMIT_ROW = "OffsetCommitRow";

/** A plain OffsetCommit record as ctx.storage keeps it: group, topic, partition, then the value's fields in order. */
export type OffsetCommitRow = readonly [
  tag: typeof OFFSET_COMMIT_ROW,
  group: string,
  topic: string,
  partition: number,
  offset: number,
  leaderEpoch: number,
  metadata: string,
  commitTimestamp: number,
  expireTimestamp: number,
];

/**
 * What ctx.storage keeps for a record. A plain OffsetCommit record (not a
 * tombstone, not a TxnOffsetCommit's) is kept as a flat row: an idle
 * consumer's auto-commit writes one per owned partition every few seconds,
 * so they are most of a group's log, and the durable log keeps an object
 * by walking its keys (three objects per record), a row without. Every
 * other record is kept as it is. `fromStoredForm` gives the record back.
 */
export function toStoredForm(record: StoredRecord): StoredRecord | OffsetCommitRow {
  if (record.type !== RecordType.OffsetCommit || record.value === null || record.transaction !== undefined) return record;
  const { key, value } = record;
  return [
    OFFSET_COMMIT_ROW,
    key.group,
    key.topic,
    key.partition,
    value.offset,
    value.leaderEpoch,
    value.metadata,
    value.commitTimestamp,
    value.expireTimestamp,
  ];
}

/** A value read back from ctx.storage as the record it stands for (anything that is not a row, unchanged). */
export function fromStoredForm(stored: unknown): unknown {
  if (!Array.isArray(stored) || stored[0] !== OFFSET_COMMIT_ROW || stored.length !== 9) return stored;
  const [, group, topic, partition, offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp] = stored as unknown as OffsetCommitRow;
  const record: OffsetCommitRecord = {
    type: RecordType.OffsetCommit,
    key: { group, topic, partition },
    value: { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp },
  };
  return record;
}
