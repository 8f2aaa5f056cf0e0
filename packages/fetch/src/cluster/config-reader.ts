import { ConfigError, type JsonValue } from "@kcsim/protocol";

/**
 * Reads an actor's JSON config field by field. Every complaint is one
 * ConfigError line naming the field by its path ("broker config:
 * 'topics[1].partitions' must be ...").
 */
export class ConfigReader {
  readonly #scope: string;
  readonly #path: string;
  readonly #object: { readonly [key: string]: JsonValue };

  private constructor(scope: string, path: string, object: { readonly [key: string]: JsonValue }) {
    this.#scope = scope;
    this.#path = path;
    this.#object = object;
  }

  /** A reader over `value`, which must be a JSON object. */
  static of(scope: string, value: JsonValue | undefined, path = ""): ConfigReader {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      const where = path === "" ? `${scope} config` : `${scope} config: '${path}'`;
      throw new ConfigError(`${where} must be an object, got ${JSON.stringify(value ?? null)}`);
    }
    return new ConfigReader(scope, path, value as { readonly [key: string]: JsonValue });
  }

  /** Fails on keys outside `known` (a typo should not be silently ignored). */
  onlyKeys(known: readonly string[]): this {
    for (const key of Object.keys(this.#object)) {
      if (!known.includes(key)) this.fail(key, `is not a known field (known: ${known.join(", ")})`);
    }
    return this;
  }

  has(key: string): boolean {
    return this.#object[key] !== undefined;
  }

  raw(key: string): JsonValue | undefined {
    return this.#object[key];
  }

  int(key: string, options: { min?: number; max?: number; default?: number } = {}): number {
    const value = this.#object[key] ?? options.default;
    if (typeof value !== "number" || !Number.isInteger(value)) this.fail(key, `must be an integer, got ${JSON.stringify(value ?? null)}`);
    if (options.min !== undefined && value < options.min) this.fail(key, `= ${value} is below the minimum ${options.min}`);
    if (options.max !== undefined && value > options.max) this.fail(key, `= ${value} is above the maximum ${options.max}`);
    return value;
  }

  number(key: string, options: { min?: number; exclusiveMin?: number; max?: number; default?: number } = {}): number {
    const value = this.#object[key] ?? options.default;
    if (typeof value !== "number" || !Number.isFinite(value)) this.fail(key, `must be a number, got ${JSON.stringify(value ?? null)}`);
    if (options.min !== undefined && value < options.min) this.fail(key, `= ${value} is below the minimum ${options.min}`);
    if (options.max !== undefined && value > options.max) this.fail(key, `= ${value} is above the maximum ${options.max}`);
    if (options.exclusiveMin !== undefined && value <= options.exclusiveMin)
      this.fail(key, `= ${value} must be above ${options.exclusiveMin}`);
    return value;
  }

  string(key: string, options: { default?: string; oneOf?: readonly string[] } = {}): string {
    const value = this.#object[key] ?? options.default;
    if (typeof value !== "string" || value.length === 0) this.fail(key, `must be a non-empty string, got ${JSON.stringify(value ?? null)}`);
    if (options.oneOf !== undefined && !options.oneOf.includes(value))
      this.fail(key, `= ${JSON.stringify(value)} is not one of ${options.oneOf.join(", ")}`);
    return value;
  }

  /** A nested object field (absent: `{}` when `optional`). */
  object(key: string, optional = false): ConfigReader {
    const value = this.#object[key];
    if (value === undefined && optional) return new ConfigReader(this.#scope, this.#childPath(key), {});
    return ConfigReader.of(this.#scope, value, this.#childPath(key));
  }

  /** A nested object field that may be null (or absent): null then. */
  nullableObject(key: string): ConfigReader | null {
    const value = this.#object[key];
    if (value === undefined || value === null) return null;
    return ConfigReader.of(this.#scope, value, this.#childPath(key));
  }

  /** An array field (absent: [] when `optional`), each element as JSON. */
  array(key: string, options: { optional?: boolean; minItems?: number } = {}): readonly JsonValue[] {
    const value = this.#object[key];
    if (value === undefined && options.optional) return [];
    if (!Array.isArray(value)) this.fail(key, `must be an array, got ${JSON.stringify(value ?? null)}`);
    const items = value as readonly JsonValue[];
    if (options.minItems !== undefined && items.length < options.minItems) this.fail(key, `must have at least ${options.minItems} item(s)`);
    return items;
  }

  /** The objects of an array field, each as a reader. */
  objects(key: string, options: { optional?: boolean; minItems?: number } = {}): ConfigReader[] {
    return this.array(key, options).map((item, i) => ConfigReader.of(this.#scope, item, `${this.#childPath(key)}[${i}]`));
  }

  /** The strings of an array field. */
  strings(key: string, options: { optional?: boolean; minItems?: number } = {}): string[] {
    return this.array(key, options).map((item, i) => {
      if (typeof item !== "string" || item.length === 0)
        this.fail(`${key}[${i}]`, `must be a non-empty string, got ${JSON.stringify(item)}`);
      return item;
    });
  }

  /** Throws the ConfigError for `key`. */
  fail(key: string, problem: string): never {
    throw new ConfigError(`${this.#scope} config: '${this.#childPath(key)}' ${problem}`);
  }

  #childPath(key: string): string {
    return this.#path === "" ? key : `${this.#path}.${key}`;
  }
}
