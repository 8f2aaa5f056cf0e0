import { Fetcher, type RecordSource } from "@kcsim/fetch";
import type { ActorId } from "@kcsim/protocol";
import { clientIdOf } from "./client-id.js";
import type { ConsumerMemberConfig } from "./consumer-member-config.js";
import type { CorrelationIds } from "./correlation-ids.js";
import { SyntheticRecordSource } from "./synthetic-record-source.js";

/**
 * The RecordSource a member's config asks for: the in-memory synthetic
 * source, or the client Fetcher reading from the data brokers with the
 * consumer's settings (isolation.level, fetch sizes, timeouts, backoffs) and
 * client.id, numbering its requests from the member's own correlation ids.
 */
export function recordSourceFor(actorId: ActorId, config: ConsumerMemberConfig, correlationIds: CorrelationIds): RecordSource {
  const source = config.source;
  switch (source.kind) {
    case "synthetic":
      return new SyntheticRecordSource(source);
    case "fetch":
      return new Fetcher({ ...config.consumer, "client.id": clientIdOf(actorId, config.consumer) }, source.brokers, config.topics, {
        nextCorrelationId: () => correlationIds.next(),
      });
  }
}
