import type { ConsumedRecord, PolledRecords } from "@kcsim/fetch";
import { type ActorId, type Context, type JsonValue, type Message, ms } from "@kcsim/protocol";
import type { ApplicationSteps, BatchDone, BatchProcessor } from "./batch-processor.js";
import { rangesOf } from "./batch-ranges.js";
import type { OutputStage } from "./output-stage.js";
import type { RecordSink } from "./record-sink.js";

/**
 * An application whose processing has effects: records are processed one
 * at a time (processingMsPerRecord each), and as each is done it is
 * written to the sink and/or its result sent to the output; the batch
 * begins and ends with the output stage (a transaction, or waiting for the
 * acknowledgements). A crash part-way through a batch leaves the effects of
 * the records processed so far.
 */
export class RecordByRecordProcessor implements BatchProcessor {
  readonly #sink: RecordSink | null;
  readonly #output: OutputStage | null;
  #batches = 0;

  constructor(sink: RecordSink | null, output: OutputStage | null) {
    this.#sink = sink;
    this.#output = output;
  }

  start(ctx: Context): void {
    this.#output?.start(ctx);
  }

  process(batch: PolledRecords, steps: ApplicationSteps, ctx: Context, done: BatchDone): void {
    this.#batches++;
    const records = batch.records();
    const output = this.#output;
    if (output === null) this.#processFrom(records, 0, steps, ctx, done);
    else output.beginBatch(steps, ctx, (ctx) => this.#processFrom(records, 0, steps, ctx, done));
  }

  /** Processes records[index..]: each takes its processing time, then has its effects. */
  #processFrom(records: readonly ConsumedRecord[], index: number, steps: ApplicationSteps, ctx: Context, done: BatchDone): void {
    for (let i = index; i < records.length; i++) {
      const record = records[i] as ConsumedRecord;
      const delay = ms(steps.processingMsPerRecord);
      if (delay > 0) {
        steps.work(
          delay,
          (ctx) => {
            this.#effects(record, ctx);
            this.#processFrom(records, i + 1, steps, ctx, done);
          },
          ctx,
        );
        return;
      }
      this.#effects(record, ctx);
    }
    const output = this.#output;
    if (output === null) done(ctx, "processed");
    else output.endBatch(rangesOf(records), steps, ctx, done);
  }

  #effects(record: ConsumedRecord, ctx: Context): void {
    this.#sink?.write(record, ctx);
    this.#output?.send(record, ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): boolean {
    return this.#output?.receive(from, message, ctx) ?? false;
  }

  fire(timer: string, ctx: Context): boolean {
    return this.#output?.fire(timer, ctx) ?? false;
  }

  snapshot(): JsonValue {
    return { batches: this.#batches, sinkWrites: this.#sink?.writes ?? 0, output: this.#output?.snapshot() ?? null };
  }
}
