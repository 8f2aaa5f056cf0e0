import type { ActorId } from "@kcsim/protocol";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { ActorSpec } from "../kernel/simulation-spec.js";
import { brokerIds, CONTROLLER_ID, coordinatorIds, groupMembers, transactionCoordinatorIds } from "./expand-groups.js";
import type { ScenarioFile } from "./scenario-schema.js";

/**
 * Where in the scenario file an actor's settings come from, so a bad value
 * is reported at the field the user wrote ("groups[0] (member-3)").
 */
function settingsSources(scenario: ScenarioFile): Map<ActorId, string> {
  const where = new Map<ActorId, string>();
  const cluster = scenario.cluster;
  if (cluster !== undefined) {
    for (const id of coordinatorIds(cluster)) where.set(id, "cluster (group coordinator)");
    for (const id of brokerIds(cluster)) where.set(id, "cluster (broker)");
    if ((cluster.brokers ?? 0) > 0) where.set(CONTROLLER_ID, "cluster (controller)");
    for (const id of transactionCoordinatorIds(cluster)) where.set(id, "cluster (transaction coordinator)");
  }
  (scenario.groups ?? []).forEach((group, i) => {
    for (const member of groupMembers(group)) {
      where.set(member.id, `groups[${i}] (${member.id})`);
      where.set(`${member.id}-r`, `groups[${i}] (${member.id}-r)`);
    }
  });
  (scenario.producers ?? []).forEach((producer, i) => {
    const prefix = producer.idPrefix ?? "producer-";
    for (let n = 1; n <= (producer.count ?? 1); n++) where.set(`${prefix}${n}`, `producers[${i}] (${prefix}${n})`);
  });
  (scenario.actors ?? []).forEach((actor, i) => {
    where.set(actor.id, `actors[${i}].config`);
  });
  return where;
}

/** Why an actor cannot be built from its settings, or null: a message naming the field, for ScenarioError. */
export type ActorConfigProblem = { readonly where: string; readonly message: string };

/**
 * Builds every actor of a run from its kind and settings, exactly as a host
 * will, and keeps nothing: an actor's factory parses its whole config
 * (Kafka's ConfigDefs, the application, the record source, the workload),
 * so a bad value fails here, before the run, instead of as an actor
 * exception that reads like a checker verdict.
 */
export function actorConfigProblem(
  scenario: ScenarioFile,
  actors: readonly ActorSpec[],
  registry: ActorRegistry,
): ActorConfigProblem | null {
  let sources: Map<ActorId, string> | null = null;
  for (const actor of actors) {
    const factory = registry.get(actor.kind);
    const where = () => {
      sources ??= settingsSources(scenario);
      return sources.get(actor.id) ?? `actor ${actor.id}`;
    };
    if (factory === undefined)
      return { where: where(), message: `unknown actor kind '${actor.kind}' (known: ${[...registry.keys()].join(", ")})` };
    try {
      factory(actor.id, actor.config);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { where: where(), message: message.split("\n")[0] ?? message };
    }
  }
  return null;
}
