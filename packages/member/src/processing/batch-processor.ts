import type { PolledRecords } from "@kcsim/fetch";
import type { ActorId, Context, JsonValue, Message, Micros } from "@kcsim/protocol";
import type { Continuation } from "../consumer/completion.js";

/**
 * How a batch ended for the application thread:
 * - `processed`: done (committing its offsets, if the app does, comes next);
 * - `rewound`: rolled back (aborted transaction, failed send): the consumer
 *   was sought back to the batch's first offsets and nothing is committed.
 */
export type BatchOutcome = "processed" | "rewound";

export type BatchDone = (ctx: Context, outcome: BatchOutcome) => void;

/**
 * What a batch processor may do on the application thread (the
 * ApplicationThread implements it): work for a while (processing time,
 * frozen by pause-app, rescaled by set-processing-ms), or wait for a
 * result from elsewhere (the output producer), woken by `wakeProcessing`.
 */
export interface ApplicationSteps {
  /** The processing time per record now (set-processing-ms changes it). */
  readonly processingMsPerRecord: number;
  /** Works for `delay`, then runs `then`. */
  work(delay: Micros, then: Continuation, ctx: Context): void;
  /** Waits until the thread is woken (a result may be ready), then runs `then`, which checks and may wait again. */
  waitForResult(then: Continuation, ctx: Context): void;
}

/**
 * What the application does with each polled batch, on its thread, and
 * the network side of it (an embedded producer): the member routes it the
 * messages and timers it does not handle itself first (`receive`/`fire`
 * return true for the processor's own), and every component gets a
 * SimDisconnect.
 */
export interface BatchProcessor {
  /** Called once, when the consumer starts. */
  start(ctx: Context): void;
  /** Processes a non-empty batch; calls `done` once, when the thread may go on. */
  process(batch: PolledRecords, steps: ApplicationSteps, ctx: Context, done: BatchDone): void;
  receive(from: ActorId, message: Message, ctx: Context): boolean;
  fire(timer: string, ctx: Context): boolean;
  snapshot(): JsonValue;
}
