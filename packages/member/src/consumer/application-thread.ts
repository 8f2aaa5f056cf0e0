import type { PolledRecords, RecordSource } from "@kcsim/fetch";
import { type Context, type Micros, ms, partitionsByTopic, type TopicPartition } from "@kcsim/protocol";
import type { RebalanceCallback } from "../observations.js";
import type { ApplicationSteps, BatchDone, BatchOutcome, BatchProcessor } from "../processing/batch-processor.js";
import type { Continuation } from "./completion.js";
import type { ApplicationConfig } from "./consumer-member-config.js";
import type { MemberObserver } from "./member-observer.js";
import type { LeaveReason, RebalanceListenerInvoker } from "./membership-manager.js";

/** What the application thread asks of the rest of the consumer. */
export interface ApplicationHooks {
  /**
   * poll() was entered: its loop's first pass begins (Kafka's PollEvent, the
   * classic `ConsumerCoordinator.poll`): auto-commit, reconciliation,
   * joining, and the poll timer restarts.
   */
  onPollEntered(ctx: Context): void;
  /**
   * Another round of a waiting poll(): reconciliation and joining. When
   * `passBegins`, the round is the top of a new pass of poll()'s loop (the
   * last pass's wait ran out before poll()'s timeout, or the background
   * thread has work for the application: a callback, a reconciliation),
   * and the poll timer restarts; a round woken by records is not.
   */
  onPollIteration(ctx: Context, passBegins: boolean): void;
  /**
   * The longest one pass of poll()'s loop waits for records (Kafka's
   * `maximumTimeToWait` of the network thread, the classic
   * `ConsumerCoordinator.timeToNextPoll`: the next heartbeat or
   * auto-commit), in microseconds, more than 0.
   */
  passWaitUs(now: Micros): Micros;
  /** The member hit a fatal error: poll() throws. */
  isFatal(): boolean;
  isSubscribed(): boolean;
  subscribe(topics: readonly string[], ctx: Context): void;
  leave(reason: LeaveReason, ctx: Context, onDone: Continuation): void;
  commitSync(ctx: Context, onDone: Continuation): void;
}

/** Consumer API calls the application makes between two poll loop steps (from control commands). */
export type ApplicationCall =
  | { readonly kind: "commit-sync" }
  | { readonly kind: "close" }
  | { readonly kind: "unsubscribe" }
  | { readonly kind: "subscribe"; readonly topics: readonly string[] };

interface QueuedCallback {
  readonly callback: RebalanceCallback;
  readonly partitions: readonly TopicPartition[];
  readonly onDone: Continuation;
}

/** Where the application thread is. */
type Activity = "idle" | "polling" | "processing" | "committing" | "leaving" | "closed";

const APP_TIMER = "app";

/**
 * The application thread, as a chain of timers: poll() -> process the
 * records (the BatchProcessor: processingMsPerRecord each, and whatever
 * the app does with them) -> maybe commitSync -> poll() ...
 * Rebalance callbacks run on it, inside poll() (or inside close() /
 * unsubscribe()), one at a time, each for its configured duration, so a
 * slow batch delays them. "pause-app" freezes it where it is (heartbeats go
 * on); "resume-app" continues with the remaining work.
 */
export class ApplicationThread implements RebalanceListenerInvoker, ApplicationSteps {
  readonly #config: ApplicationConfig;
  readonly #maxPollRecords: number;
  readonly #source: RecordSource;
  readonly #observer: MemberObserver;
  readonly #hooks: ApplicationHooks;
  readonly #processor: BatchProcessor;
  #processingMsPerRecord: number;
  // The step the thread is in, as fields rather than an object per step: what it runs next (null: no step), when
  // that is due, and whether it is a wait that new work (a callback, records, a reconciliation) may cut short.
  #next: Continuation | null = null;
  // Both times are read only once a step has set them, and both hold Infinity at times (a wait with no end), so
  // they start there: a field that starts as a small integer and later holds Infinity changes representation in
  // V8, which throws away the optimized code of every function that had seen a thread (about a dozen).
  #dueAt: Micros = Number.POSITIVE_INFINITY;
  #wakeable = false;
  #pausedRemaining: Micros = Number.POSITIVE_INFINITY;
  #paused = false;
  #activity: Activity = "idle";
  #dead = false;
  #pollDeadline: Micros = 0;
  /** When the current pass of poll()'s loop stops waiting for records (null: its wait is not set yet). */
  #passEndsAt: Micros | null = null;
  #leaveDone = false;
  readonly #callbacks: QueuedCallback[] = [];
  readonly #calls: ApplicationCall[] = [];
  #polls = 0;
  #records = 0;
  // The loop's continuations, made once (the poll loop schedules one of them at every step).
  readonly #toBetweenSteps: Continuation = (ctx) => this.#betweenSteps(ctx);
  readonly #toNextPollRound: Continuation = (ctx) => {
    const passEndsAt = this.#passEndsAt;
    const passBegins = passEndsAt !== null && ctx.now() >= passEndsAt && ctx.now() < this.#pollDeadline;
    if (passBegins) this.#passEndsAt = null;
    this.#hooks.onPollIteration(ctx, passBegins);
    this.#pollRound(ctx);
  };
  readonly #toBetweenStepsSoon: Continuation = (ctx) => this.#schedule(ctx, 0, this.#toBetweenSteps, false);
  readonly #toAfterBatch: BatchDone = (ctx, outcome) => this.#afterBatch(outcome, ctx);

  constructor(
    config: ApplicationConfig,
    maxPollRecords: number,
    source: RecordSource,
    observer: MemberObserver,
    hooks: ApplicationHooks,
    processor: BatchProcessor,
  ) {
    this.#config = config;
    this.#maxPollRecords = maxPollRecords;
    this.#source = source;
    this.#observer = observer;
    this.#hooks = hooks;
    this.#processor = processor;
    this.#processingMsPerRecord = config.processingMsPerRecord;
  }

  get processingMsPerRecord(): number {
    return this.#processingMsPerRecord;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get activity(): Activity {
    return this.#activity;
  }

  get closed(): boolean {
    return this.#activity === "closed";
  }

  start(ctx: Context): void {
    this.#schedule(ctx, 0, this.#toBetweenSteps, false);
  }

  handlesTimer(timer: string): boolean {
    return timer === APP_TIMER;
  }

  fire(ctx: Context): void {
    const next = this.#next;
    if (next === null || this.#paused) return;
    this.#next = null;
    next(ctx);
  }

  // ---- commands -----------------------------------------------------------

  pause(ctx: Context): void {
    if (this.#paused) return;
    this.#paused = true;
    if (this.#next !== null) this.#pausedRemaining = Math.max(0, this.#dueAt - ctx.now());
    ctx.cancelTimer(APP_TIMER);
  }

  resume(ctx: Context): void {
    if (!this.#paused) return;
    this.#paused = false;
    if (this.#next !== null) {
      // A frozen wait re-checks at once; frozen work has what was left of it to do.
      const delay = this.#wakeable ? 0 : this.#pausedRemaining;
      if (Number.isFinite(delay)) {
        this.#dueAt = ctx.now() + delay;
        ctx.setTimer(APP_TIMER, delay);
      }
    } else if (this.#activity === "idle" && this.#calls.length > 0) {
      this.#schedule(ctx, 0, this.#toBetweenSteps, false);
    }
  }

  /** An API call from the application: made at the next point between two steps of its loop. */
  call(call: ApplicationCall, ctx: Context): void {
    if (this.#activity === "closed") {
      ctx.log.info("consumer is closed; call ignored", { call: call.kind });
      return;
    }
    this.#calls.push(call);
    if (this.#activity === "idle" && this.#next === null && !this.#paused) this.#schedule(ctx, 0, this.#toBetweenSteps, false);
  }

  /**
   * Changes what each record costs from now on, including the records of the
   * batch being processed: the work left in it is rescaled to the new cost.
   */
  setProcessingMsPerRecord(msPerRecord: number, ctx: Context): void {
    const previous = this.#processingMsPerRecord;
    this.#processingMsPerRecord = msPerRecord;
    if (this.#activity !== "processing" || this.#next === null || previous <= 0) return;
    const remaining = this.#paused ? this.#pausedRemaining : Math.max(0, this.#dueAt - ctx.now());
    const rescaled = Math.round((remaining * msPerRecord) / previous);
    if (this.#paused) {
      this.#pausedRemaining = rescaled;
      return;
    }
    this.#dueAt = ctx.now() + rescaled;
    ctx.setTimer(APP_TIMER, rescaled);
  }

  // ---- rebalance callbacks --------------------------------------------------

  invoke(callback: RebalanceCallback, partitions: readonly TopicPartition[], ctx: Context, onDone: Continuation): void {
    this.#callbacks.push({ callback, partitions: [...partitions], onDone });
    this.wake(ctx, true);
  }

  // ---- steps of a batch (ApplicationSteps, for the BatchProcessor) --------------

  work(delay: Micros, then: Continuation, ctx: Context): void {
    this.#activity = "processing";
    this.#schedule(ctx, delay, then, false);
  }

  waitForResult(then: Continuation, ctx: Context): void {
    this.#activity = "committing";
    this.#schedule(ctx, Number.POSITIVE_INFINITY, then, true);
  }

  /** Something the batch processor may be waiting for happened (its producer answered): a waiting batch re-checks. */
  wakeProcessing(ctx: Context): void {
    if (this.#activity === "committing") this.wake(ctx);
  }

  /**
   * Cuts a wait short (new callback, records, a reconciliation to start); no
   * effect while working or paused. With `forTheApplication` (a callback or
   * a reconciliation, which Kafka's application thread takes up at the top
   * of a pass of poll()'s loop), a poll() waiting for records begins a new
   * pass; records end the wait of the pass they came in.
   */
  wake(ctx: Context, forTheApplication = false): void {
    if (forTheApplication && this.waitingInPoll && !this.#paused) this.#passEndsAt = ctx.now();
    if (this.#next === null || !this.#wakeable || this.#paused || this.#dueAt <= ctx.now()) return;
    this.#dueAt = ctx.now();
    ctx.setTimer(APP_TIMER, 0);
  }

  /**
   * A poll() waiting for records wakes when the source expects some: called
   * after every event, since positions and fetchability change under it.
   */
  refreshPollWait(ctx: Context): void {
    if (!this.waitingInPoll || this.#paused) return;
    const now = ctx.now();
    const readyAt = this.#source.nextReadyAt(now);
    if (readyAt === null || readyAt >= this.#dueAt) return;
    this.#dueAt = Math.max(now, readyAt);
    ctx.setTimer(APP_TIMER, this.#dueAt - now);
  }

  /** Whether the thread is waiting inside poll() (where new work would wake it). */
  get waitingInPoll(): boolean {
    return this.#activity === "polling" && this.#next !== null && this.#wakeable;
  }

  snapshot(): { activity: Activity; paused: boolean; dead: boolean; polls: number; records: number; queuedCallbacks: number } {
    return {
      activity: this.#activity,
      paused: this.#paused,
      dead: this.#dead,
      polls: this.#polls,
      records: this.#records,
      queuedCallbacks: this.#callbacks.length,
    };
  }

  // ---- the loop -------------------------------------------------------------

  #schedule(ctx: Context, delay: Micros, run: Continuation, wakeable: boolean): void {
    this.#next = run;
    this.#dueAt = ctx.now() + delay;
    this.#wakeable = wakeable;
    if (this.#paused) {
      this.#pausedRemaining = delay;
    } else if (Number.isFinite(delay)) {
      ctx.setTimer(APP_TIMER, delay);
    } else {
      ctx.cancelTimer(APP_TIMER);
    }
  }

  /** Between two steps of the application loop: pending API calls first, then the next poll(). */
  #betweenSteps(ctx: Context): void {
    this.#activity = "idle";
    const call = this.#calls.shift();
    if (call !== undefined) {
      switch (call.kind) {
        case "subscribe":
          this.#hooks.subscribe(call.topics, ctx);
          this.#betweenSteps(ctx);
          return;
        case "commit-sync":
          this.#activity = "committing";
          this.#hooks.commitSync(ctx, this.#toBetweenStepsSoon);
          return;
        case "close":
        case "unsubscribe":
          this.#beginLeave(call.kind, ctx);
          return;
      }
    }
    // Not subscribed (poll() would throw), or poll() already threw a fatal error: the loop waits for a call.
    if (this.#dead || !this.#hooks.isSubscribed()) return;
    this.#enterPoll(ctx);
  }

  #enterPoll(ctx: Context): void {
    this.#activity = "polling";
    this.#pollDeadline = ctx.now() + ms(this.#config.pollTimeoutMs);
    this.#passEndsAt = null;
    this.#hooks.onPollEntered(ctx);
    this.#pollRound(ctx);
  }

  /**
   * One round inside poll(): pending callbacks, then records, else wait for
   * them, until the pass's wait or poll()'s timeout runs out. A pass waits
   * at most passWaitUs, counted from the end of its callbacks (Kafka's
   * `pollForFetches` sets its wait after the pass's background events).
   */
  #pollRound(ctx: Context): void {
    const next = this.#callbacks.shift();
    if (next !== undefined) {
      this.#passEndsAt = null;
      this.#runCallback(next, ctx, this.#toNextPollRound);
      return;
    }
    if (this.#hooks.isFatal()) {
      ctx.log.error("poll() threw the member's fatal error; the application stops polling");
      this.#dead = true;
      this.#activity = "idle";
      this.#betweenSteps(ctx);
      return;
    }
    const polled = this.#source.poll(this.#maxPollRecords, ctx);
    const now = ctx.now();
    if (polled.count > 0 || now >= this.#pollDeadline) {
      this.#returnFromPoll(polled, ctx);
      return;
    }
    if (this.#passEndsAt === null) {
      const wait = this.#hooks.passWaitUs(now);
      // A pass that waits for nothing would begin again in the same instant, for ever.
      if (!(wait > 0)) throw new Error(`a pass of poll()'s loop must wait some time for records, not ${wait} us`);
      this.#passEndsAt = Math.min(this.#pollDeadline, now + wait);
    }
    const readyAt = this.#source.nextReadyAt(now);
    const wakeAt = readyAt !== null && readyAt > now ? Math.min(readyAt, this.#passEndsAt) : this.#passEndsAt;
    this.#schedule(ctx, wakeAt - now, this.#toNextPollRound, true);
  }

  #returnFromPoll(polled: PolledRecords, ctx: Context): void {
    this.#passEndsAt = null;
    this.#polls++;
    this.#records += polled.count;
    // One observation per poll: that it returned nothing, or its records' ranges.
    if (polled.count === 0) {
      this.#observer.emptyPoll(ctx);
      this.#schedule(ctx, 0, this.#toBetweenSteps, false);
      return;
    }
    this.#observer.records(ctx, polled.ranges);
    this.#activity = "processing";
    this.#processor.process(polled, this, ctx, this.#toAfterBatch);
  }

  /** A batch is done: commitSync if the app commits after each batch (not after a rolled-back one), then the next poll. */
  #afterBatch(outcome: BatchOutcome, ctx: Context): void {
    if (this.#config.commit !== "sync-after-batch" || outcome === "rewound") {
      this.#betweenSteps(ctx);
      return;
    }
    this.#activity = "committing";
    this.#hooks.commitSync(ctx, this.#toBetweenStepsSoon);
  }

  #beginLeave(reason: LeaveReason, ctx: Context): void {
    this.#activity = "leaving";
    this.#leaveDone = false;
    this.#hooks.leave(reason, ctx, (ctx) => {
      this.#leaveDone = true;
      this.wake(ctx);
    });
    this.#leaveRound(reason, ctx);
  }

  /** close() / unsubscribe() run the release callbacks on this thread, then return. */
  #leaveRound(reason: LeaveReason, ctx: Context): void {
    const next = this.#callbacks.shift();
    if (next !== undefined) {
      this.#runCallback(next, ctx, (ctx) => this.#leaveRound(reason, ctx));
      return;
    }
    if (!this.#leaveDone) {
      this.#schedule(ctx, Number.POSITIVE_INFINITY, (ctx) => this.#leaveRound(reason, ctx), true);
      return;
    }
    if (reason === "close") {
      this.#activity = "closed";
      this.#calls.length = 0;
      return;
    }
    this.#betweenSteps(ctx);
  }

  #runCallback(queued: QueuedCallback, ctx: Context, then: Continuation): void {
    const partitions = partitionsByTopic(queued.partitions);
    this.#observer.callback(ctx, queued.callback, "start", partitions);
    this.#schedule(
      ctx,
      ms(this.#callbackMs(queued.callback)),
      (ctx) => {
        this.#observer.callback(ctx, queued.callback, "end", partitions);
        queued.onDone(ctx);
        then(ctx);
      },
      false,
    );
  }

  #callbackMs(callback: RebalanceCallback): number {
    switch (callback) {
      case "onPartitionsRevoked":
        return this.#config.revokeCallbackMs;
      case "onPartitionsAssigned":
        return this.#config.assignCallbackMs;
      case "onPartitionsLost":
        return this.#config.lostCallbackMs;
    }
  }
}
