import { type ConsumedRecord, TransactionalProducer, type TransactionalResult } from "@kcsim/fetch";
import { type ActorId, type Context, type JsonValue, type Message, ms } from "@kcsim/protocol";
import type { ApplicationSteps, BatchDone } from "./batch-processor.js";
import type { PartitionRange } from "./batch-ranges.js";
import { type BatchEnd, reportBatch } from "./batch-report.js";
import { batchOwnership, rewindBatch } from "./batch-rewind.js";
import type { OutputEnvironment, OutputStage } from "./output-stage.js";
import { resultValueOf } from "./result-value.js";

/** Why a batch is aborted when a rebalance began revoking partitions of it while it was processed. */
const REVOKED = "REVOKED";
/** Why a batch is aborted when partitions of it were lost and the consumer has no member identity left to commit with. */
const LOST = "LOST";

/**
 * Kafka's exactly-once consume-process-produce loop, one transaction per
 * batch, with a TransactionalProducer embedded in the member
 * (transactional.id `<group id>-<actor id>`: stable across restarts of the
 * actor, so a restarted process fences its predecessor and aborts the
 * transaction it left open):
 *
 *   initTransactions (once, before the first batch)
 *   beginTransaction; for each record: process it, send its result
 *   sendOffsetsToTransaction(next offsets, consumer.groupMetadata())
 *   commitTransaction
 *
 * Any error aborts the transaction, and so does a rebalance revoking
 * partitions of the batch meanwhile; a member fenced meanwhile is refused
 * by the group coordinator (its TxnOffsetCommit carries its stale group
 * metadata: KIP-447), which aborts it too. The consumer is then sought back to the
 * batch's first offsets (its last committed positions) and processes the
 * records again. A fatal error (PRODUCER_FENCED: the coordinator timed the
 * transaction out, or a newer producer took the transactional.id) replaces
 * the producer with a new one, initialised again, before the next batch.
 * Each batch's end is a `member.batch` observation. The producer runs the
 * cluster's transaction.version (the member config's `transactionVersion`:
 * at 2, KIP-890 part 2's transactions).
 */
export class TransactionalOutput implements OutputStage {
  readonly transactionalId: string;
  readonly #env: OutputEnvironment;
  #producer: TransactionalProducer | null = null;
  /** initTransactions of the current producer, until the first batch saw it succeed. */
  #init: TransactionalResult | null = null;
  #producers = 0;
  #committed = 0;
  #aborted = 0;
  #fenced = 0;

  constructor(env: OutputEnvironment) {
    this.#env = env;
    this.transactionalId = `${env.groupId}-${env.actorId}`;
  }

  start(ctx: Context): void {
    this.#newProducer(ctx);
  }

  beginBatch(steps: ApplicationSteps, ctx: Context, then: (ctx: Context) => void): void {
    let producer = this.#producer;
    if (producer === null || producer.hasFatalError) producer = this.#newProducer(ctx);
    const init = this.#init;
    if (init !== null) {
      if (!init.isCompleted) {
        steps.waitForResult((ctx) => this.beginBatch(steps, ctx, then), ctx);
        return;
      }
      this.#init = null;
      if (init.error !== null) {
        this.#retryWithNewProducer(`initTransactions failed: ${init.error.name}`, steps, ctx, then);
        return;
      }
    }
    const begun = producer.beginTransaction(ctx);
    if (begun.error !== null) {
      this.#retryWithNewProducer(`beginTransaction failed: ${begun.error.name}`, steps, ctx, then);
      return;
    }
    then(ctx);
  }

  send(record: ConsumedRecord, ctx: Context): void {
    const value = resultValueOf({ topic: record.topic, partition: record.partition, offset: record.offset, writer: this.#env.actorId });
    this.#producer?.send(this.#env.output.topic, record.key, value, record.sizeInBytes, ctx);
  }

  endBatch(ranges: readonly PartitionRange[], steps: ApplicationSteps, ctx: Context, done: BatchDone): void {
    const producer = this.#producer;
    if (producer === null) throw new Error("a batch ended without a producer");
    if (producer.hasAbortableError || producer.hasFatalError) {
      this.#rollBack(producer, producer.lastError?.name ?? "KafkaException", ranges, steps, ctx, done);
      return;
    }
    const refusal = this.#refusal(ranges);
    if (refusal !== null) {
      this.#rollBack(producer, refusal, ranges, steps, ctx, done);
      return;
    }
    const offsets = ranges.map(({ partition, last }) => ({ topic: partition.topic, partition: partition.partition, offset: last + 1 }));
    const sent = producer.sendOffsetsToTransaction(offsets, this.#env.groupMetadata(), ctx);
    this.#whenDone(sent, steps, ctx, (ctx) => {
      if (sent.error !== null) {
        this.#rollBack(producer, sent.error.name, ranges, steps, ctx, done);
        return;
      }
      if (batchOwnership(ranges, this.#env.assigned) === "revoking") {
        this.#rollBack(producer, REVOKED, ranges, steps, ctx, done);
        return;
      }
      const commit = producer.commitTransaction(ctx);
      this.#whenDone(commit, steps, ctx, (ctx) => {
        if (commit.error !== null) {
          this.#rollBack(producer, commit.error.name, ranges, steps, ctx, done);
          return;
        }
        this.#committed++;
        this.#report(ctx, { outcome: "committed", reason: "NONE", ranges, rewound: [] });
        done(ctx, "processed");
      });
    });
  }

  receive(from: ActorId, message: Message, ctx: Context): boolean {
    return this.#producer?.receive(from, message, ctx) ?? false;
  }

  fire(timer: string, ctx: Context): boolean {
    return this.#producer?.fire(timer, ctx) ?? false;
  }

  snapshot(): JsonValue {
    return {
      transactionalId: this.transactionalId,
      state: this.#producer?.state ?? null,
      producerId: this.#producer?.producerIdAndEpoch.producerId ?? -1,
      producerEpoch: this.#producer?.producerIdAndEpoch.epoch ?? -1,
      producers: this.#producers,
      committedBatches: this.#committed,
      abortedBatches: this.#aborted,
      fencedBatches: this.#fenced,
    };
  }

  /**
   * Why the batch must abort without committing its offsets, or null: a
   * rebalance is revoking some of its partitions (Kafka's pattern: abort and
   * let the next owner start from the last committed offsets), or it lost
   * some and the consumer has no member identity left (a classic member
   * reset to rejoin: a TxnOffsetCommit without one would not be checked).
   * Partitions lost by a member that still has its identity go to the
   * coordinator, which refuses the zombie's TxnOffsetCommit (KIP-447).
   */
  #refusal(ranges: readonly PartitionRange[]): string | null {
    switch (batchOwnership(ranges, this.#env.assigned)) {
      case "owned":
        return null;
      case "revoking":
        return REVOKED;
      case "lost":
        return this.#env.groupMetadata().memberId === "" ? LOST : null;
    }
  }

  #newProducer(ctx: Context): TransactionalProducer {
    const env = this.#env;
    const producer = new TransactionalProducer(
      {
        transactionalId: this.transactionalId,
        bootstrap: env.brokers,
        topics: env.topics,
        transactionCoordinators: env.transactionCoordinators,
        groupCoordinators: env.groupCoordinators,
        settings: env.output.producer,
        transactionVersion: env.transactionVersion,
      },
      // Each producer the application makes has its own connections (its own NetworkClient).
      { nextCorrelationId: env.nextCorrelationId, connection: `producer-${this.#producers + 1}` },
    );
    this.#producer = producer;
    this.#producers++;
    producer.start(ctx);
    this.#init = producer.initTransactions(ctx);
    return producer;
  }

  /** A producer that could not be initialised or begin: a new one after retry.backoff.max.ms, as an application restarting it would. */
  #retryWithNewProducer(problem: string, steps: ApplicationSteps, ctx: Context, then: (ctx: Context) => void): void {
    const backoffMs = this.#producer?.settings["retry.backoff.max.ms"] ?? 1000;
    ctx.log.warn("output producer unusable; a new one is made", { transactionalId: this.transactionalId, problem });
    this.#producer = null;
    this.#init = null;
    steps.work(
      ms(backoffMs),
      (ctx) => {
        this.#newProducer(ctx);
        this.beginBatch(steps, ctx, then);
      },
      ctx,
    );
  }

  /** Aborts the batch's transaction (or, after a fatal error, replaces the producer) and rewinds the consumer. */
  #rollBack(
    producer: TransactionalProducer,
    reason: string,
    ranges: readonly PartitionRange[],
    steps: ApplicationSteps,
    ctx: Context,
    done: BatchDone,
  ): void {
    if (producer.hasFatalError) {
      this.#fence(producer, reason, ranges, ctx, done);
      return;
    }
    const abort = producer.abortTransaction(ctx);
    this.#whenDone(abort, steps, ctx, (ctx) => {
      if (abort.error !== null) {
        this.#fence(producer, abort.error.name, ranges, ctx, done);
        return;
      }
      this.#aborted++;
      const rewound = rewindBatch(ranges, this.#env.source, this.#env.assigned, ctx);
      this.#report(ctx, { outcome: "aborted", reason, ranges, rewound });
      done(ctx, "rewound");
    });
  }

  /** The producer is done for (fatal error): its transaction is left to the coordinator; a new producer fences it. */
  #fence(producer: TransactionalProducer, reason: string, ranges: readonly PartitionRange[], ctx: Context, done: BatchDone): void {
    ctx.log.info("output producer hit a fatal error; a new one is initialised", {
      transactionalId: this.transactionalId,
      error: producer.lastError?.name ?? reason,
    });
    this.#fenced++;
    this.#newProducer(ctx);
    const rewound = rewindBatch(ranges, this.#env.source, this.#env.assigned, ctx);
    this.#report(ctx, { outcome: "fenced", reason: producer.lastError?.name ?? reason, ranges, rewound });
    done(ctx, "rewound");
  }

  /** Runs `then` once `result` is complete, waiting on the application thread until it is. */
  #whenDone(result: TransactionalResult, steps: ApplicationSteps, ctx: Context, then: (ctx: Context) => void): void {
    if (result.isCompleted) then(ctx);
    else steps.waitForResult((ctx) => this.#whenDone(result, steps, ctx, then), ctx);
  }

  #report(ctx: Context, end: Omit<BatchEnd, "transactionalId">): void {
    reportBatch(this.#env.observer, ctx, { transactionalId: this.transactionalId, ...end });
  }
}
