import type { RecordSource } from "@kcsim/fetch";
import type { Actor, ActorId, JsonValue } from "@kcsim/protocol";
import { type ConsumerMemberConfig, parseConsumerMemberConfig } from "./consumer-member-config.js";
import { ConsumerProcessActor } from "./consumer-process-actor.js";
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
export class ConsumerMember extends ConsumerProcessActor<ConsumerRuntime> {
  /** `correlationIds` numbers the member's requests; a source that sends requests of its own must number them from it too. */
  constructor(id: ActorId, config: ConsumerMemberConfig, source: RecordSource, correlationIds: CorrelationIds) {
    super((ctx) => new ConsumerRuntime(id, config, source, correlationIds, ctx));
  }
}

/** The "consumer" actor factory: validates the JSON config (throwing a one-line error naming the bad field). */
export function createConsumerMember(id: ActorId, config: JsonValue, options: ConsumerMemberOptions = {}): Actor {
  const parsed = parseConsumerMemberConfig(config);
  const correlationIds = new CorrelationIds();
  return new ConsumerMember(id, parsed, options.recordSource ?? recordSourceFor(id, parsed, correlationIds), correlationIds);
}
