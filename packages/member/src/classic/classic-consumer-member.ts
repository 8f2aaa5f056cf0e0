import type { RecordSource } from "@kcsim/fetch";
import type { Actor, ActorId, JsonValue } from "@kcsim/protocol";
import { ConsumerProcessActor } from "../consumer/consumer-process-actor.js";
import { CorrelationIds } from "../consumer/correlation-ids.js";
import { recordSourceFor } from "../consumer/record-source-for.js";
import { type ClassicMemberConfig, parseClassicMemberConfig } from "./classic-member-config.js";
import { ClassicRuntime } from "./classic-runtime.js";

/** The actor kind name the harness registers this actor under. */
export const CLASSIC_CONSUMER_MEMBER_KIND = "classic-consumer";

export interface ClassicConsumerMemberOptions {
  /** Where records come from; by default the source the config describes (synthetic, or the Fetcher). */
  readonly recordSource?: RecordSource;
}

/**
 * A classic consumer (group.protocol=classic: JoinGroup / SyncGroup /
 * Heartbeat with client-side assignors, EAGER or COOPERATIVE) as an actor.
 * Its volatile state is the whole consumer: a restart is a new process that
 * joins with an empty member id (a static member keeps its
 * group.instance.id, and so its place in the group).
 *
 * Control commands: pause-app, resume-app, close, unsubscribe,
 * subscribe {topics}, set-processing-ms {ms}, commit-sync.
 */
export class ClassicConsumerMember extends ConsumerProcessActor<ClassicRuntime> {
  /** `correlationIds` numbers the member's requests; a source that sends requests of its own must number them from it too. */
  constructor(id: ActorId, config: ClassicMemberConfig, source: RecordSource, correlationIds: CorrelationIds) {
    super((ctx) => new ClassicRuntime(id, config, source, correlationIds, ctx));
  }
}

/**
 * The "classic-consumer" actor factory: the same JSON config as the
 * "consumer" actor, with group.protocol "classic"; validates it (throwing
 * a one-line error naming the bad field).
 */
export function createClassicConsumerMember(id: ActorId, config: JsonValue, options: ClassicConsumerMemberOptions = {}): Actor {
  const parsed = parseClassicMemberConfig(config);
  const correlationIds = new CorrelationIds();
  return new ClassicConsumerMember(id, parsed, options.recordSource ?? recordSourceFor(id, parsed, correlationIds), correlationIds);
}
