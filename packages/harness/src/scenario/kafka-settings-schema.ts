import {
  BROKER_CONFIG_DEF,
  CONSUMER_CONFIG_DEF,
  type ConfigDef,
  type ConfigValue,
  PRODUCER_CONFIG_DEF,
  type SettingDef,
} from "@kcsim/protocol";

/** The settings objects of a scenario that hold Kafka settings, each with the ConfigDef its actors resolve it with. */
export const KAFKA_SETTINGS = {
  consumer: { scope: "consumer", def: CONSUMER_CONFIG_DEF },
  broker: { scope: "broker", def: BROKER_CONFIG_DEF },
  producer: { scope: "producer", def: PRODUCER_CONFIG_DEF },
} as const;

export type KafkaSettingsKind = keyof typeof KAFKA_SETTINGS;

/** The keyword that marks a settings object in the scenario schema: its value names the ConfigDef. */
export const KAFKA_SETTINGS_KEYWORD = "x-kafka-settings";

/** A JSON Schema fragment (plain data). */
export type JsonSchema = { [keyword: string]: unknown };

const INT_MAX = 2147483647;
const LONG_MAX = Number.MAX_SAFE_INTEGER;

/** "45000", "[\"uniform\",\"range\"]", "null": a default as it appears in a scenario file. */
function shown(value: ConfigValue): string {
  return JSON.stringify(value);
}

/** The bounds of a setting in words: "at least 1", "1 to 60000", "one of ...". */
function boundsOf(setting: SettingDef<ConfigValue>): string | null {
  if (setting.validValues !== undefined) return `one of ${setting.validValues.map((v) => JSON.stringify(v)).join(", ")}`;
  if (setting.min !== undefined && setting.max !== undefined) return `${setting.min} to ${setting.max}`;
  if (setting.min !== undefined) return `at least ${setting.min}`;
  if (setting.max !== undefined) return `at most ${setting.max}`;
  return null;
}

/** The JSON Schema of one setting: its type, bounds and default, and a description naming all three. */
export function settingSchema(name: string, setting: SettingDef<ConfigValue>): JsonSchema {
  const bounds = boundsOf(setting);
  const description = [
    setting.doc,
    `Kafka setting ${name} (${setting.type}); default ${shown(setting.default)}${bounds === null ? "" : `; ${bounds}`}${setting.nullable ? "; may be null" : ""}.`,
  ].join(" ");
  const schema: JsonSchema = { description };
  switch (setting.type) {
    case "int":
    case "long":
      schema.type = "integer";
      schema.minimum = setting.min ?? (setting.type === "int" ? -INT_MAX - 1 : -LONG_MAX);
      schema.maximum = setting.max ?? (setting.type === "int" ? INT_MAX : LONG_MAX);
      break;
    case "boolean":
      schema.type = "boolean";
      break;
    case "string":
      schema.type = "string";
      if (setting.validValues !== undefined) schema.enum = [...setting.validValues];
      break;
    case "list":
      schema.type = "array";
      schema.items = setting.validValues === undefined ? { type: "string" } : { type: "string", enum: [...setting.validValues] };
      break;
  }
  if (setting.nullable) {
    schema.type = [schema.type, "null"];
    if (Array.isArray(schema.enum)) schema.enum = [...schema.enum, null];
  }
  schema.default = setting.default;
  return schema;
}

/**
 * A settings object as JSON Schema: one property per setting of the
 * ConfigDef (Kafka's names), nothing else (the actor rejects an unknown
 * name when it resolves its config).
 */
export function settingsSchema(kind: KafkaSettingsKind, description: string): JsonSchema {
  const def = KAFKA_SETTINGS[kind].def as ConfigDef<Record<string, ConfigValue>>;
  const properties: Record<string, JsonSchema> = {};
  for (const name of Object.keys(def).sort()) properties[name] = settingSchema(name, def[name] as SettingDef<ConfigValue>);
  return { type: "object", description, properties, additionalProperties: false };
}
