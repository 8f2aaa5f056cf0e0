import { ControlRecordType, NO_PARTITION_LEADER_EPOCH, NO_SEQUENCE, type RecordBatch } from "@kcsim/protocol";
import { RECORD_BATCH_OVERHEAD, recordSizeInBytes } from "../producer/record-size.js";

/** COMMIT or ABORT (Kafka's `ControlRecordType`). */
export type ControlType = (typeof ControlRecordType)[keyof typeof ControlRecordType];

/**
 * A transaction marker (Kafka's `EndTransactionMarker`): the control
 * record that ends a producer's transaction on a partition. Its key is the
 * control type ("COMMIT"/"ABORT"), its value the coordinator epoch as a
 * decimal string (Kafka's value holds the version and the coordinator
 * epoch).
 */
export interface EndTransactionMarker {
  readonly controlType: ControlType;
  readonly coordinatorEpoch: number;
}

/** Kafka's control record key (version, type: 4 bytes) and value (version, coordinator epoch: 6 bytes). */
const CONTROL_KEY_BYTES = 4;
const CONTROL_VALUE_BYTES = 6;

/** The control batch a partition leader appends for a WriteTxnMarkers entry (offsets are the leader's to assign). */
export function controlBatchOf(producerId: number, producerEpoch: number, marker: EndTransactionMarker, timestampMs: number): RecordBatch {
  const recordBytes = recordSizeInBytes(0, 0, CONTROL_KEY_BYTES, CONTROL_VALUE_BYTES);
  return {
    baseOffset: 0,
    lastOffsetDelta: 0,
    partitionLeaderEpoch: NO_PARTITION_LEADER_EPOCH,
    sizeInBytes: RECORD_BATCH_OVERHEAD + recordBytes,
    baseTimestamp: timestampMs,
    producerId,
    producerEpoch,
    baseSequence: NO_SEQUENCE,
    isTransactional: true,
    isControl: true,
    records: [
      { offsetDelta: 0, timestampDelta: 0, key: marker.controlType, value: String(marker.coordinatorEpoch), sizeInBytes: recordBytes },
    ],
  };
}

/** The marker a control batch holds, or undefined (not a control batch, or an empty one). */
export function endTransactionMarkerOf(batch: RecordBatch): EndTransactionMarker | undefined {
  if (!batch.isControl) return undefined;
  const record = batch.records[0];
  if (record === undefined) return undefined;
  const controlType = record.key === ControlRecordType.ABORT ? ControlRecordType.ABORT : ControlRecordType.COMMIT;
  const coordinatorEpoch = Number(record.value ?? "-1");
  return { controlType, coordinatorEpoch: Number.isInteger(coordinatorEpoch) ? coordinatorEpoch : -1 };
}

/** Whether a batch is a control batch holding an ABORT marker (Kafka's `containsAbortMarker`). */
export function containsAbortMarker(batch: RecordBatch): boolean {
  return batch.isControl && batch.records[0]?.key === ControlRecordType.ABORT;
}
