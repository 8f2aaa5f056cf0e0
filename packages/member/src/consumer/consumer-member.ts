import type { RecordSource } from "@kcsim/fetch";
import type { Actor, ActorId, Context, ControlCommand, JsonValue, Message } from "@kcsim/protocol";
import { type ConsumerMemberConfig, parseConsumerMemberConfig } from "./consumer-member-config.js";
import { ConsumerRuntime } from "./consumer-runtime.js";
import { CorrelationIds } from "./correlation-ids.js";
import { recordSourceFor } from "./record-source-for.js";

/** The actor kind name the harness registers this actor under. */
export const CONSUMER_MEMBER_KIND = "consumer";

export interface ConsumerMemberOptions {
  /** Where records come from; by default the source the config describes (synthetic, or the Fetcher). */
  readonly recordSource?: RecordSource;
}

/**
 * A KIP-848 consumer (group.protocol=consumer) as an actor. Its volatile
 * state is the whole consumer: a restart is a new process with a new member
 * id (a static member keeps its group.instance.id and so its identity).
 *
 * Control commands: pause-app, resume-app, close, unsubscribe,
 * subscribe {topics}, set-processing-ms {ms}, commit-sync.
 */
export class ConsumerMember implements Actor {
  readonly #id: ActorId;
  readonly #config: ConsumerMemberConfig;
  readonly #source: RecordSource;
  readonly #correlationIds: CorrelationIds;
  #runtime: ConsumerRuntime | null = null;

  /** `correlationIds` numbers the member's requests; a source that sends requests of its own must number them from it too. */
  constructor(id: ActorId, config: ConsumerMemberConfig, source: RecordSource, correlationIds: CorrelationIds) {
    this.#id = id;
    this.#config = config;
    this.#source = source;
    this.#correlationIds = correlationIds;
  }

  start(ctx: Context): void {
    this.#runtime = new ConsumerRuntime(this.#id, this.#config, this.#source, this.#correlationIds, ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#runtime?.receive(from, message, ctx);
  }

  fire(timer: string, ctx: Context): void {
    this.#runtime?.fire(timer, ctx);
  }

  control(command: ControlCommand, ctx: Context): void {
    this.#runtime?.control(command, ctx);
  }

  snapshot(): JsonValue {
    return this.#runtime?.snapshot() ?? { started: false };
  }
}

/** The "consumer" actor factory: validates the JSON config (throwing a one-line error naming the bad field). */
export function createConsumerMember(id: ActorId, config: JsonValue, options: ConsumerMemberOptions = {}): Actor {
  const parsed = parseConsumerMemberConfig(config);
  const correlationIds = new CorrelationIds();
  return new ConsumerMember(id, parsed, options.recordSource ?? recordSourceFor(id, parsed, correlationIds), correlationIds);
}
