import type { ActorId, ConsumerConfig } from "@kcsim/protocol";

/** The client.id the consumer's requests carry: the configured one, else the actor id. */
export function clientIdOf(actorId: ActorId, consumer: ConsumerConfig): string {
  return consumer["client.id"] === "" ? actorId : consumer["client.id"];
}
