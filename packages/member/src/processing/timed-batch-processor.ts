import type { PolledRecords } from "@kcsim/fetch";
import { type Context, type JsonValue, ms } from "@kcsim/protocol";
import type { ApplicationSteps, BatchDone, BatchProcessor } from "./batch-processor.js";

/**
 * The plain application (`app.mode` "poll", no sink): a batch costs its
 * records' processing time in one step, and nothing else happens.
 */
export class TimedBatchProcessor implements BatchProcessor {
  start(_ctx: Context): void {}

  process(batch: PolledRecords, steps: ApplicationSteps, ctx: Context, done: BatchDone): void {
    steps.work(ms(batch.count * steps.processingMsPerRecord), (ctx) => done(ctx, "processed"), ctx);
  }

  receive(): boolean {
    return false;
  }

  fire(): boolean {
    return false;
  }

  snapshot(): JsonValue {
    return null;
  }
}
