import type { JsonValue } from "@kcsim/protocol";
import type { SimulationSpec } from "../kernel/simulation-spec.js";

/** A consumer group of a run whose application consumes, processes and produces (app.mode "consume-process-produce"). */
export interface ConsumeProcessProduceGroup {
  readonly groupId: string;
  readonly actors: ReadonlySet<string>;
  readonly inputTopics: ReadonlySet<string>;
  readonly outputTopic: string;
  /** Whether its members commit results and offsets in transactions. */
  readonly transactional: boolean;
}

type JsonObject = { readonly [key: string]: JsonValue };

function objectAt(value: JsonValue | undefined, key: string): JsonObject | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const field = (value as JsonObject)[key];
  return typeof field === "object" && field !== null && !Array.isArray(field) ? (field as JsonObject) : undefined;
}

/** The group id of every consumer member actor of the run (from its config's consumer["group.id"]). */
export function groupOfActors(spec: SimulationSpec): Map<string, string> {
  const groups = new Map<string, string>();
  for (const actor of spec.actors) {
    const groupId = objectAt(actor.config, "consumer")?.["group.id"];
    if (typeof groupId === "string") groups.set(actor.id, groupId);
  }
  return groups;
}

/** The consume-process-produce groups of a run, read from its members' configs. */
export function consumeProcessProduceGroups(spec: SimulationSpec): ConsumeProcessProduceGroup[] {
  const groups = new Map<string, { actors: Set<string>; inputTopics: Set<string>; outputTopic: string; transactional: boolean }>();
  for (const actor of spec.actors) {
    const app = objectAt(actor.config, "app");
    const output = objectAt(app, "output");
    const groupId = objectAt(actor.config, "consumer")?.["group.id"];
    if (app?.mode !== "consume-process-produce" || output === undefined || typeof groupId !== "string") continue;
    if (typeof output.topic !== "string") continue;
    let group = groups.get(groupId);
    if (group === undefined) {
      group = { actors: new Set(), inputTopics: new Set(), outputTopic: output.topic, transactional: output.transactional === true };
      groups.set(groupId, group);
    }
    group.actors.add(actor.id);
    const subscription = (actor.config as JsonObject).subscription;
    if (Array.isArray(subscription)) for (const topic of subscription) if (typeof topic === "string") group.inputTopics.add(topic);
  }
  return [...groups].map(([groupId, group]) => ({ groupId, ...group }));
}
