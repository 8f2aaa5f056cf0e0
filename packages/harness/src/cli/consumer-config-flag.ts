import { CONSUMER_CONFIG_DEF, ConfigError, type ConfigValue, resolveConfig, type SettingDef } from "@kcsim/protocol";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { UsageError } from "./usage-error.js";

/** Consumer settings given on the command line, by name. */
export type ConsumerConfigOverrides = Readonly<Record<string, ConfigValue>>;

function parseValue(command: string, name: string, text: string): ConfigValue {
  const def = (CONSUMER_CONFIG_DEF as Readonly<Record<string, SettingDef<ConfigValue>>>)[name];
  if (def === undefined) throw new UsageError(`${command}: --consumer-config: unknown consumer config '${name}'`);
  if (text === "null" && def.nullable === true) return null;
  switch (def.type) {
    case "int":
    case "long":
      return /^-?\d+$/.test(text) ? Number(text) : text;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "list":
      return text === "" ? [] : text.split(",");
    default:
      return text;
  }
}

/**
 * `--consumer-config NAME=VALUE` (repeatable): settings applied to every
 * member of every group, over what the scenario says. Each one is checked
 * against the consumer's ConfigDef here, so a bad one is a one-line usage error.
 */
export function consumerConfigFlag(command: string, flags: readonly string[] | undefined): ConsumerConfigOverrides {
  const overrides: Record<string, ConfigValue> = {};
  for (const flag of flags ?? []) {
    const eq = flag.indexOf("=");
    if (eq <= 0) throw new UsageError(`${command}: --consumer-config must be NAME=VALUE, got '${flag}'`);
    const name = flag.slice(0, eq);
    overrides[name] = parseValue(command, name, flag.slice(eq + 1));
  }
  try {
    resolveConfig("consumer", CONSUMER_CONFIG_DEF, overrides);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(`${command}: --consumer-config: ${error.message}`);
    throw error;
  }
  return overrides;
}

/** The scenario with the overrides merged into every group's consumer settings (kept in hunt failure dirs, so they replay alone). */
export function withConsumerConfig(scenario: ScenarioFile, overrides: ConsumerConfigOverrides): ScenarioFile {
  if (Object.keys(overrides).length === 0 || scenario.groups === undefined) return scenario;
  return { ...scenario, groups: scenario.groups.map((group) => ({ ...group, consumer: { ...(group.consumer ?? {}), ...overrides } })) };
}
