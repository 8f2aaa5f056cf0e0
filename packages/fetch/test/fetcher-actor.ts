import {
  type Actor,
  type ActorId,
  type Context,
  type JsonValue,
  type Message,
  type Micros,
  ms,
  resolveConsumerConfig,
  type TopicPartition,
  topicIdFor,
} from "@kcsim/protocol";
import type { ConsumedRecord } from "../src/consumer/record-source.js";
import { Fetcher } from "../src/index.js";

/** The poll loop's timer (the fetcher's own timers start with "fetch."). */
const POLL_TIMER = "poll";

export interface FetcherActorConfig {
  readonly bootstrap: readonly ActorId[];
  readonly topic: string;
  readonly partitions: number;
  /** Kafka consumer settings for the fetcher. */
  readonly consumer: Record<string, JsonValue>;
  readonly pollIntervalMs: number;
  /** Where the partitions start: offset 0 (the default), or reset to latest by ListOffsets. */
  readonly startAt?: "zero" | "latest";
}

/** A record the application took, with when it took it. */
export interface PolledRecord {
  readonly at: Micros;
  readonly record: ConsumedRecord;
}

/**
 * A group-less consumer for the data-path tests (not a test file itself): a
 * Fetcher inside an actor, every partition of one topic assigned from the
 * start at offset 0, polled on every message and every poll.interval, as a
 * member actor would host it. Counts the SimDisconnects the fetcher took as
 * its own and the ones it left to the rest of the member.
 */
export class FetcherActor implements Actor {
  readonly config: FetcherActorConfig;
  readonly polled: PolledRecord[] = [];
  disconnectsHandled = 0;
  disconnectsLeft = 0;
  #fetcher: Fetcher | null = null;

  constructor(config: FetcherActorConfig) {
    this.config = config;
  }

  get fetcher(): Fetcher {
    if (this.#fetcher === null) throw new Error("fetcher actor used before start");
    return this.#fetcher;
  }

  start(ctx: Context): void {
    const { topic, partitions } = this.config;
    this.#fetcher = new Fetcher(resolveConsumerConfig({ "client.id": ctx.self, ...this.config.consumer }), this.config.bootstrap, [
      { name: topic, id: topicIdFor(topic), partitions },
    ]);
    const assigned: TopicPartition[] = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
    this.fetcher.assign(assigned, ctx);
    for (const tp of assigned) {
      if (this.config.startAt === "latest") this.fetcher.resetPosition(tp, "latest", ctx);
      else this.fetcher.seek(tp, 0, ctx);
    }
    ctx.setTimer(POLL_TIMER, ms(this.config.pollIntervalMs));
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    const handled = this.fetcher.receive(from, message, ctx);
    if (message.type === "SimDisconnect") {
      if (handled) this.disconnectsHandled++;
      else this.disconnectsLeft++;
    }
    this.#poll(ctx);
  }

  fire(timer: string, ctx: Context): void {
    if (timer === POLL_TIMER) {
      this.#poll(ctx);
      ctx.setTimer(POLL_TIMER, ms(this.config.pollIntervalMs));
      return;
    }
    this.fetcher.fire(timer, ctx);
  }

  #poll(ctx: Context): void {
    const at = ctx.now();
    for (const record of this.fetcher.poll(Number.MAX_SAFE_INTEGER, ctx).records()) this.polled.push({ at, record });
  }
}

export function createFetcherActor(config: FetcherActorConfig): (id: ActorId, json: JsonValue) => FetcherActor {
  return () => new FetcherActor(config);
}
