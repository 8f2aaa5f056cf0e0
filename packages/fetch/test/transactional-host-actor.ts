import type { Actor, ActorId, Context, JsonValue, Message } from "@kcsim/protocol";
import { TransactionalProducer, type TransactionalProducerConfig } from "../src/index.js";

/**
 * An actor hosting a TransactionalProducer for the tests (not a test file
 * itself), as a consumer member would: it routes the producer its messages
 * and timers and keeps its Context, so a test can drive the producer
 * between network steps (`host.producer.commitTransaction(host.ctx)`).
 */
export class TransactionalHostActor implements Actor {
  readonly producer: TransactionalProducer;
  /** Messages and timers the producer did not take. */
  readonly unhandled: string[] = [];
  /** The types of every message delivered, in order. */
  readonly received: string[] = [];
  #ctx: Context | null = null;

  constructor(config: TransactionalProducerConfig) {
    this.producer = new TransactionalProducer(config);
  }

  get ctx(): Context {
    if (this.#ctx === null) throw new Error("host used before start");
    return this.#ctx;
  }

  start(ctx: Context): void {
    this.#ctx = ctx;
    this.producer.start(ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.received.push(message.type);
    if (!this.producer.receive(from, message, ctx)) this.unhandled.push(message.type);
  }

  fire(timer: string, ctx: Context): void {
    if (!this.producer.fire(timer, ctx)) this.unhandled.push(timer);
  }

  snapshot(): JsonValue {
    return this.producer.snapshot();
  }
}

export function createTransactionalHost(config: TransactionalProducerConfig): (id: ActorId, json: JsonValue) => TransactionalHostActor {
  return () => new TransactionalHostActor(config);
}
