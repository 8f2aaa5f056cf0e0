/**
 * A small ConfigDef in Kafka's style: each setting has a type, a default and
 * optional bounds or valid values; resolving a partial config fills the
 * defaults and rejects unknown names and out-of-range values with a
 * ConfigError naming the setting.
 */
export type ConfigValue = number | string | boolean | null | readonly string[];

export interface SettingDef<V extends ConfigValue> {
  readonly type: "int" | "long" | "string" | "boolean" | "list";
  readonly default: V;
  readonly min?: number;
  readonly max?: number;
  readonly validValues?: readonly string[];
  readonly nullable?: boolean;
  readonly doc: string;
}

export type ConfigDef<C> = { readonly [K in keyof C]: SettingDef<C[K] & ConfigValue> };

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

function checkSetting(scope: string, name: string, def: SettingDef<ConfigValue>, value: unknown): ConfigValue {
  const where = `${scope} config '${name}'`;
  if (value === null) {
    if (def.nullable) return null;
    throw new ConfigError(`${where} must not be null`);
  }
  switch (def.type) {
    case "int":
    case "long": {
      if (typeof value !== "number" || !Number.isInteger(value)) {
        throw new ConfigError(`${where} must be an integer, got ${JSON.stringify(value)}`);
      }
      if (def.min !== undefined && value < def.min) throw new ConfigError(`${where} = ${value} is below the minimum ${def.min}`);
      if (def.max !== undefined && value > def.max) throw new ConfigError(`${where} = ${value} is above the maximum ${def.max}`);
      return value;
    }
    case "boolean":
      if (typeof value !== "boolean") throw new ConfigError(`${where} must be true or false, got ${JSON.stringify(value)}`);
      return value;
    case "string":
      if (typeof value !== "string") throw new ConfigError(`${where} must be a string, got ${JSON.stringify(value)}`);
      if (def.validValues && !def.validValues.includes(value)) {
        throw new ConfigError(`${where} = ${JSON.stringify(value)} is not one of ${def.validValues.join(", ")}`);
      }
      return value;
    case "list": {
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
        throw new ConfigError(`${where} must be a list of strings, got ${JSON.stringify(value)}`);
      }
      const bad = def.validValues ? value.find((item) => !def.validValues?.includes(item)) : undefined;
      if (bad !== undefined) throw new ConfigError(`${where} has ${JSON.stringify(bad)}, not one of ${def.validValues?.join(", ")}`);
      return [...value];
    }
  }
}

/** Fills defaults into `overrides` and validates every value. */
export function resolveConfig<C>(scope: string, def: ConfigDef<C>, overrides: unknown): C {
  if (overrides !== undefined && (typeof overrides !== "object" || overrides === null || Array.isArray(overrides))) {
    throw new ConfigError(`${scope} config must be an object of settings, got ${JSON.stringify(overrides)}`);
  }
  const given = (overrides ?? {}) as Record<string, unknown>;
  const defs = def as Record<string, SettingDef<ConfigValue>>;
  for (const name of Object.keys(given)) {
    if (!(name in defs)) throw new ConfigError(`unknown ${scope} config '${name}'`);
  }
  const resolved: Record<string, ConfigValue> = {};
  for (const [name, setting] of Object.entries(defs)) {
    resolved[name] = name in given ? checkSetting(scope, name, setting, given[name]) : setting.default;
  }
  return resolved as C;
}

/** The defaults of a ConfigDef, as a config object. */
export function defaultsOf<C>(def: ConfigDef<C>): C {
  return resolveConfig("default", def, {});
}
