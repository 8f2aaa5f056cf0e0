import type { ActorId, Context, Message, Micros, Observation } from "@kcsim/protocol";
import type { CoordinatorRecord } from "../records/coordinator-record.js";
import { toStoredForm } from "../records/stored-form.js";

/** A message to send once the operation that produced it is complete. */
export interface Outgoing {
  readonly to: ActorId;
  readonly message: Message;
}

/** What a finished operation hands to the runtime. */
export interface OperationResult {
  readonly records: readonly CoordinatorRecord[];
  readonly observations: readonly Observation[];
  readonly responses: readonly Outgoing[];
  /** Answer now whatever is pending (Kafka completes a failed operation at once). */
  readonly immediate: boolean;
}

/** The timer that flushes the open batch after group.coordinator.append.linger.ms. */
export const APPEND_LINGER_TIMER = "append-linger";

/**
 * Batched appends as Kafka's CoordinatorRuntime does them. State changes
 * are already applied in memory; their records wait in the open batch,
 * which is appended to ctx.storage when the linger timer fires (at once
 * when the linger is 0). Only then are the operations' observations
 * emitted and their responses sent: a crash before the flush loses
 * records, observations and responses together, like a failed append.
 *
 * An operation without records answers at once when no batch is open, and
 * otherwise after the open batch (read-your-writes, as Kafka defers such
 * an operation to the last pending offset).
 */
export class AppendBatcher {
  readonly #lingerMicros: Micros;
  #records: CoordinatorRecord[] = [];
  #observations: Observation[] = [];
  #responses: Outgoing[] = [];
  #open = false;

  constructor(lingerMicros: Micros) {
    this.#lingerMicros = lingerMicros;
  }

  get hasOpenBatch(): boolean {
    return this.#open;
  }

  /** The records written but not flushed yet, oldest first. */
  pendingRecords(): readonly CoordinatorRecord[] {
    return this.#records;
  }

  complete(ctx: Context, result: OperationResult): void {
    if (result.records.length === 0 && (result.immediate || !this.#open)) {
      for (const observation of result.observations) ctx.observe(observation);
      for (const { to, message } of result.responses) ctx.send(to, message);
      return;
    }
    if (result.records.length > 0 && !this.#open) {
      this.#open = true;
      if (this.#lingerMicros > 0) ctx.setTimer(APPEND_LINGER_TIMER, this.#lingerMicros);
    }
    for (const record of result.records) this.#records.push(record);
    for (const observation of result.observations) this.#observations.push(observation);
    for (const response of result.responses) this.#responses.push(response);
    if (this.#lingerMicros <= 0) this.flush(ctx);
  }

  /** Appends the open batch to storage, then releases its observations and responses. */
  flush(ctx: Context): void {
    if (!this.#open) return;
    const records = this.#records;
    const observations = this.#observations;
    const responses = this.#responses;
    this.#records = [];
    this.#observations = [];
    this.#responses = [];
    this.#open = false;
    ctx.cancelTimer(APPEND_LINGER_TIMER);
    for (const record of records) ctx.storage.append(toStoredForm(record));
    for (const observation of observations) ctx.observe(observation);
    for (const { to, message } of responses) ctx.send(to, message);
  }
}
