import { type ConsumedRecord, ProducerClient, type SendHandle } from "@kcsim/fetch";
import type { ActorId, Context, JsonValue, Message } from "@kcsim/protocol";
import type { ApplicationSteps, BatchDone } from "./batch-processor.js";
import type { PartitionRange } from "./batch-ranges.js";
import { type BatchEnd, reportBatch } from "./batch-report.js";
import { rewindBatch } from "./batch-rewind.js";
import { outputProducerSettings } from "./output-producer-settings.js";
import type { OutputEnvironment, OutputStage } from "./output-stage.js";
import { resultValueOf } from "./result-value.js";

/**
 * The at-least-once consume-process-produce loop, without transactions:
 * each record's result goes out through an idempotent producer (no
 * duplicates from the producer's own retries), the batch waits for every
 * result to be acknowledged (`producer.flush()`), then the application
 * commits its offsets with commitSync. A crash, a rebalance or a fenced
 * member between the sends and the commit re-delivers the records, and
 * their results are sent again: duplicates in the output. A send that
 * fails rewinds the consumer to the batch's first offsets instead.
 */
export class IdempotentOutput implements OutputStage {
  readonly #env: OutputEnvironment;
  #client: ProducerClient | null = null;
  #handles: SendHandle[] = [];
  #produced = 0;
  #failed = 0;

  constructor(env: OutputEnvironment) {
    this.#env = env;
  }

  start(ctx: Context): void {
    const env = this.#env;
    const settings = outputProducerSettings(env.output, null);
    this.#client = new ProducerClient(
      {
        clientId: settings["client.id"] === "" ? `${env.actorId}-producer` : settings["client.id"],
        settings,
        acks: -1,
        bootstrap: env.brokers,
        topics: env.topics,
        idempotent: true,
        transactionalId: null,
        transactionCoordinators: [],
        groupCoordinators: [],
      },
      { nextCorrelationId: env.nextCorrelationId, connection: "producer" },
    );
    this.#client.start(ctx);
  }

  beginBatch(_steps: ApplicationSteps, ctx: Context, then: (ctx: Context) => void): void {
    this.#handles = [];
    then(ctx);
  }

  send(record: ConsumedRecord, ctx: Context): void {
    const client = this.#client;
    if (client === null) throw new Error("the output producer was not started");
    const value = resultValueOf({ topic: record.topic, partition: record.partition, offset: record.offset, writer: this.#env.actorId });
    this.#handles.push(client.send({ topic: this.#env.output.topic, key: record.key, value, valueBytes: record.sizeInBytes }, ctx));
  }

  endBatch(ranges: readonly PartitionRange[], steps: ApplicationSteps, ctx: Context, done: BatchDone): void {
    if (!this.#handles.every((handle) => handle.isDone)) {
      steps.waitForResult((ctx) => this.endBatch(ranges, steps, ctx, done), ctx);
      return;
    }
    const failed = this.#handles.find((handle) => handle.result?.error != null)?.result?.error ?? null;
    this.#handles = [];
    if (failed === null) {
      this.#produced++;
      this.#report(ctx, { outcome: "produced", reason: "NONE", ranges, rewound: [] });
      done(ctx, "processed");
      return;
    }
    this.#failed++;
    const rewound = rewindBatch(ranges, this.#env.source, this.#env.assigned, ctx);
    this.#report(ctx, { outcome: "send-failed", reason: failed.name, ranges, rewound });
    done(ctx, "rewound");
  }

  receive(from: ActorId, message: Message, ctx: Context): boolean {
    return this.#client?.receive(from, message, ctx) ?? false;
  }

  fire(timer: string, ctx: Context): boolean {
    return this.#client?.fire(timer, ctx) ?? false;
  }

  snapshot(): JsonValue {
    return { producer: this.#client?.snapshot() ?? null, producedBatches: this.#produced, failedBatches: this.#failed };
  }

  #report(ctx: Context, end: Omit<BatchEnd, "transactionalId">): void {
    reportBatch(this.#env.observer, ctx, { transactionalId: null, ...end });
  }
}
