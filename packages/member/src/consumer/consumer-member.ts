import type { RecordSource } from "@kcsim/fetch";
import type { Actor, ActorId, Context, ControlCommand, JsonValue, Message } from "@kcsim/protocol";
import { type ConsumerMemberConfig, parseConsumerMemberConfig } from "./consumer-member-config.js";
import { ConsumerRuntime } from "./consumer-runtime.js";
import { SyntheticRecordSource } from "./synthetic-record-source.js";

/** The actor kind name the harness registers this actor under. */
export const CONSUMER_MEMBER_KIND = "consumer";

export interface ConsumerMemberOptions {
  /** Where records come from; by default the synthetic source the config describes. */
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
  #runtime: ConsumerRuntime | null = null;

  constructor(id: ActorId, config: ConsumerMemberConfig, source: RecordSource) {
    this.#id = id;
    this.#config = config;
    this.#source = source;
  }

  start(ctx: Context): void {
    this.#runtime = new ConsumerRuntime(this.#id, this.#config, this.#source, ctx);
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
  return new ConsumerMember(id, parsed, options.recordSource ?? new SyntheticRecordSource(parsed.source));
}
