import { type ActorId, ErrorCode, type Message, type ProduceResponse } from "@kcsim/protocol";
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
 * An acks=all append waiting for the ISR (Kafka's `DelayedProduce`), for a
 * Produce or a WriteTxnMarkers request: each appended partition is pending
 * until its high watermark covers the batch (or the broker stops leading
 * it); until then it reads REQUEST_TIMED_OUT, which is what the client gets
 * if the request times out first. `respond` builds the answer from the
 * statuses.
 */
export class DelayedProduce implements DelayedOperation {
  readonly id: number;
  readonly replyTo: ActorId;
  readonly statuses: readonly ProducePartitionStatus[];
  readonly watchKeys: readonly string[];
  readonly #respond: (statuses: readonly ProducePartitionStatus[]) => Message;

  constructor(
    id: number,
    replyTo: ActorId,
    statuses: readonly ProducePartitionStatus[],
    keyOf: (s: ProducePartitionStatus) => string,
    respond: (statuses: readonly ProducePartitionStatus[]) => Message,
  ) {
    this.id = id;
    this.replyTo = replyTo;
    this.statuses = statuses;
    this.#respond = respond;
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

  response(): Message {
    return this.#respond(this.statuses);
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
