import {
  type JsonSchema,
  KAFKA_SETTINGS,
  KAFKA_SETTINGS_KEYWORD,
  type KafkaSettingsKind,
  settingsSchema,
} from "./kafka-settings-schema.js";
import { ScenarioSchema } from "./scenario-schema.js";

/** Where the repository keeps the generated schema (scenario files point their "$schema" at it). */
export const SCENARIO_SCHEMA_PATH = "schema/scenario.schema.json";

const isKind = (value: unknown): value is KafkaSettingsKind => typeof value === "string" && value in KAFKA_SETTINGS;

/** Replaces every settings object marked with its ConfigDef by one property per Kafka setting. */
function expand(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(expand);
  if (typeof node !== "object" || node === null) return node;
  const record = node as JsonSchema;
  const kind = record[KAFKA_SETTINGS_KEYWORD];
  if (isKind(kind)) return settingsSchema(kind, String(record.description ?? ""));
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expand(value)]));
}

/**
 * The JSON Schema (draft-07, what editors complete from) of a scenario
 * file, generated from the TypeBox schema the loader validates with:
 * TypeBox schemas are JSON Schema already (JSON.stringify drops TypeBox's
 * own symbol keys); the consumer, broker and producer settings objects are
 * expanded from their ConfigDefs.
 */
export function scenarioJsonSchema(): JsonSchema {
  const plain = JSON.parse(JSON.stringify(ScenarioSchema)) as JsonSchema;
  return { $schema: "http://json-schema.org/draft-07/schema#", ...(expand(plain) as JsonSchema) };
}

/** The schema as the committed file holds it. */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
