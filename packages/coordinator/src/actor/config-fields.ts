import { type BrokerConfig, ConfigError, type JsonValue, resolveBrokerConfig, topicIdFor } from "@kcsim/protocol";
import type { TopicImage } from "../metadata/metadata-image.js";

/** Throws the one-line config error naming the field (never returns). */
export type ConfigFailure = (message: string) => never;

export function isJsonObject(value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `broker` field: Kafka broker settings by their names (resolveBrokerConfig). */
export function parseBrokerField(json: JsonValue | undefined, fail: ConfigFailure): BrokerConfig {
  try {
    return resolveBrokerConfig(json ?? {});
  } catch (error) {
    if (error instanceof ConfigError) return fail(`field 'broker': ${error.message}`);
    throw error;
  }
}

const TOPIC_FIELDS = new Set(["name", "id", "partitions"]);

/** The `topics` field: [{name, id?, partitions}] (`id` defaults to topicIdFor(name)); names and ids unique. */
export function parseTopicsField(json: JsonValue | undefined, fail: ConfigFailure): TopicImage[] {
  if (!Array.isArray(json)) return fail(`field 'topics' must be an array of {name, id, partitions}, got ${JSON.stringify(json)}`);
  const topics: TopicImage[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  for (const [index, topic] of (json as readonly JsonValue[]).entries()) {
    const where = `field 'topics[${index}]'`;
    if (!isJsonObject(topic)) return fail(`${where} must be an object {name, id, partitions}, got ${JSON.stringify(topic)}`);
    for (const key of Object.keys(topic)) if (!TOPIC_FIELDS.has(key)) fail(`${where} has unknown field '${key}'`);
    const { name, id, partitions } = topic;
    if (typeof name !== "string" || name.length === 0) return fail(`${where}.name must be a non-empty string, got ${JSON.stringify(name)}`);
    if (id !== undefined && (typeof id !== "string" || id.length === 0)) {
      return fail(`${where}.id must be a non-empty string, got ${JSON.stringify(id)}`);
    }
    if (typeof partitions !== "number" || !Number.isInteger(partitions) || partitions < 1) {
      return fail(`${where}.partitions must be a positive integer, got ${JSON.stringify(partitions)}`);
    }
    const topicId = id ?? topicIdFor(name);
    if (names.has(name)) fail(`${where}.name '${name}' is listed twice`);
    if (ids.has(topicId)) fail(`${where}.id '${topicId}' is used by another topic`);
    names.add(name);
    ids.add(topicId);
    topics.push({ name, id: topicId, partitions });
  }
  return topics;
}

/** A field listing actor ids: a non-empty array of distinct non-empty strings. */
export function parseActorIdsField(field: string, json: JsonValue | undefined, fail: ConfigFailure): string[] {
  if (!Array.isArray(json) || json.length === 0) {
    return fail(`field '${field}' must be a non-empty array of actor ids, got ${JSON.stringify(json)}`);
  }
  const ids: string[] = [];
  for (const [index, id] of (json as readonly JsonValue[]).entries()) {
    if (typeof id !== "string" || id.length === 0) {
      fail(`field '${field}[${index}]' must be a non-empty actor id, got ${JSON.stringify(id)}`);
    } else if (ids.includes(id)) {
      fail(`field '${field}[${index}]' '${id}' is listed twice`);
    } else {
      ids.push(id);
    }
  }
  return ids;
}

/** The optional `loadMs` field: milliseconds >= 0, or null for the default. */
export function parseLoadMsField(json: JsonValue | undefined, fail: ConfigFailure): number | null {
  if (json !== undefined && (typeof json !== "number" || !Number.isFinite(json) || json < 0)) {
    fail(`field 'loadMs' must be a number of milliseconds >= 0, got ${JSON.stringify(json)}`);
  }
  return typeof json === "number" ? json : null;
}
