import { type ActorId, ErrorCode, type ProduceResponse } from "@kcsim/protocol";
import type { DelayedOperation } from "./delayed-operation-purgatory.js";
import type { Partition } from "./partition.js";

/** One partition of a produce request, as the response will report it. */
export interface ProducePartitionStatus {
  readonly topic: string;
  readonly partition: number;
  /** The offset after the appended batch: acks=all is satisfied once the high watermark reaches it. */
  readonly requiredOffset: number;
  acksPending: boolean;
  errorCode: number;
  readonly baseOffset: number;
  readonly logStartOffset: number;
}

/**
 * An acks=all produce waiting for the ISR (Kafka's `DelayedProduce`): each
 * appended partition is pending until its high watermark covers the batch
 * (or the broker stops leading it); until then it reads REQUEST_TIMED_OUT,
 * which is what the producer gets if the request times out first.
 */
export class DelayedProduce implements DelayedOperation {
  readonly id: number;
  readonly replyTo: ActorId;
  readonly correlationId: number;
  readonly statuses: readonly ProducePartitionStatus[];
  readonly watchKeys: readonly string[];

  constructor(
    id: number,
    replyTo: ActorId,
    correlationId: number,
    statuses: readonly ProducePartitionStatus[],
    keyOf: (s: ProducePartitionStatus) => string,
  ) {
    this.id = id;
    this.replyTo = replyTo;
    this.correlationId = correlationId;
    this.statuses = statuses;
    for (const status of statuses) if (status.acksPending) status.errorCode = ErrorCode.REQUEST_TIMED_OUT;
    this.watchKeys = statuses.filter((s) => s.acksPending).map(keyOf);
  }

  /** Settles what can be settled; true once no partition is pending. */
  tryComplete(partitionOf: (topic: string, partition: number) => Partition | undefined): boolean {
    for (const status of this.statuses) {
      if (!status.acksPending) continue;
      const partition = partitionOf(status.topic, status.partition);
      const check =
        partition === undefined
          ? { done: true, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }
          : partition.checkEnoughReplicasReachOffset(status.requiredOffset);
      if (check.done) {
        status.acksPending = false;
        status.errorCode = check.errorCode;
      }
    }
    return this.statuses.every((s) => !s.acksPending);
  }

  response(): ProduceResponse {
    return produceResponseOf(this.correlationId, this.statuses);
  }
}

/** A ProduceResponse listing the partitions grouped by topic, in request order. */
export function produceResponseOf(correlationId: number, statuses: readonly ProducePartitionStatus[]): ProduceResponse {
  const responses: ProduceResponse["responses"] = [];
  for (const s of statuses) {
    let topic = responses.find((t) => t.name === s.topic);
    if (topic === undefined) {
      topic = { name: s.topic, partitionResponses: [] };
      responses.push(topic);
    }
    topic.partitionResponses.push({
      index: s.partition,
      errorCode: s.errorCode,
      baseOffset: s.baseOffset,
      logAppendTimeMs: -1,
      logStartOffset: s.logStartOffset,
      errorMessage: null,
    });
  }
  return { type: "ProduceResponse", correlationId, throttleTimeMs: 0, responses };
}
