import type { GroupMetadata, RecordSource } from "@kcsim/fetch";
import type { ActorId } from "@kcsim/protocol";
import type { AssignedPartitions } from "../consumer/assigned-partitions.js";
import type { ConsumerMemberConfig } from "../consumer/consumer-member-config.js";
import type { CorrelationIds } from "../consumer/correlation-ids.js";
import type { MemberObserver } from "../consumer/member-observer.js";
import type { BatchProcessor } from "./batch-processor.js";
import { IdempotentOutput } from "./idempotent-output.js";
import type { OutputEnvironment } from "./output-stage.js";
import { RecordByRecordProcessor } from "./record-by-record-processor.js";
import { RecordSink } from "./record-sink.js";
import { TimedBatchProcessor } from "./timed-batch-processor.js";
import { TransactionalOutput } from "./transactional-output.js";

/** The parts of a running consumer a batch processor works with. */
export interface ProcessingParts {
  readonly source: RecordSource;
  readonly assigned: AssignedPartitions;
  readonly observer: MemberObserver;
  readonly correlationIds: CorrelationIds;
  groupMetadata(): GroupMetadata;
}

/** The batch processor the member's app config asks for (mode, sink, output). */
export function batchProcessorFor(actorId: ActorId, config: ConsumerMemberConfig, parts: ProcessingParts): BatchProcessor {
  const app = config.app;
  const output = app.output;
  if (output === null && app.sink === null) return new TimedBatchProcessor();
  const sink = app.sink === null ? null : new RecordSink(app.sink, parts.observer);
  if (output === null) return new RecordByRecordProcessor(sink, null);
  const env: OutputEnvironment = {
    actorId,
    groupId: config.consumer["group.id"],
    output,
    brokers: config.source.kind === "fetch" ? config.source.brokers : [],
    groupCoordinators: config.bootstrap,
    transactionCoordinators: config.transactionCoordinators,
    transactionVersion: config.transactionVersion,
    topics: config.topics.map(({ name, partitions }) => ({ name, partitions })),
    nextCorrelationId: () => parts.correlationIds.next(),
    source: parts.source,
    assigned: parts.assigned,
    observer: parts.observer,
    groupMetadata: () => parts.groupMetadata(),
  };
  return new RecordByRecordProcessor(sink, output.transactional ? new TransactionalOutput(env) : new IdempotentOutput(env));
}
