import type { CommittedOffset } from "../offsets/offset-store.js";
import type { EndTransactionMarkerRecord, OffsetCommitRecord, TransactionalOffsetCommitOrigin } from "./coordinator-record.js";
import { offsetCommitRecord } from "./offset-commit-records.js";

/** A TxnOffsetCommit's record: Kafka's OffsetCommit record, in the producer's transactional batch. */
export function transactionalOffsetCommitRecord(
  group: string,
  topic: string,
  partition: number,
  offset: CommittedOffset,
  origin: TransactionalOffsetCommitOrigin,
): OffsetCommitRecord {
  return { ...offsetCommitRecord(group, topic, partition, offset), transaction: { ...origin } };
}

/** The control record a WriteTxnMarkers request writes to a `__consumer_offsets` partition. */
export function endTransactionMarkerRecord(marker: Omit<EndTransactionMarkerRecord, "type">): EndTransactionMarkerRecord {
  return {
    type: "EndTransactionMarker",
    partition: marker.partition,
    producerId: marker.producerId,
    producerEpoch: marker.producerEpoch,
    coordinatorEpoch: marker.coordinatorEpoch,
    committed: marker.committed,
  };
}
