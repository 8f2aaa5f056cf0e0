import { type BrokerConfig, ConfigError, type JsonValue, resolveBrokerConfig, topicIdFor } from "@kcsim/protocol";
import type { TopicImage } from "../metadata/metadata-image.js";

/**
 * The group-coordinator actor's configuration, as scenarios write it:
 *
 * ```json
 * {
 *   "broker": { "group.consumer.session.timeout.ms": 45000, ... },
 *   "topics": [{ "name": "T1", "id": "…22 base64url chars…", "partitions": 60 }],
 *   "coordinators": ["coordinator-0", "coordinator-1"],
 *   "loadMs": 100
 * }
 * ```
 *
 * - `broker`: Kafka broker settings by their Kafka names (resolveBrokerConfig; optional).
 * - `topics`: the cluster's topics, the coordinator's metadata image (`id` defaults to topicIdFor(name)).
 * - `coordinators`: every coordinator actor id; group g belongs to
 *   coordinators[partitionFor(g, offsets.topic.num.partitions) mod coordinators.length].
 *   Must list this actor.
 * - `loadMs`: time to load the log after a (re)start; default 100 ms + 1 ms per 1,000 records.
 */
export interface GroupCoordinatorConfigJson {
  readonly broker?: { readonly [setting: string]: JsonValue };
  readonly topics: readonly { readonly name: string; readonly id?: string; readonly partitions: number }[];
  readonly coordinators: readonly string[];
  readonly loadMs?: number;
}

/** The validated configuration. */
export interface GroupCoordinatorConfig {
  readonly broker: BrokerConfig;
  readonly topics: readonly TopicImage[];
  readonly coordinators: readonly string[];
  /** null: the default (100 ms + 1 ms per 1,000 records). */
  readonly loadMs: number | null;
}

const FIELDS = new Set(["broker", "topics", "coordinators", "loadMs"]);
const TOPIC_FIELDS = new Set(["name", "id", "partitions"]);

function isObject(value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Validates the JSON config; a problem is one Error line naming the field. */
export function parseGroupCoordinatorConfig(actorId: string, json: JsonValue): GroupCoordinatorConfig {
  const fail = (message: string): never => {
    throw new Error(`group-coordinator ${actorId}: config ${message}`);
  };
  if (!isObject(json)) return fail(`must be an object, got ${JSON.stringify(json)}`);
  for (const key of Object.keys(json)) {
    if (!FIELDS.has(key)) fail(`has unknown field '${key}' (expected broker, topics, coordinators, loadMs)`);
  }

  let broker: BrokerConfig;
  try {
    broker = resolveBrokerConfig(json.broker ?? {});
  } catch (error) {
    if (error instanceof ConfigError) return fail(`field 'broker': ${error.message}`);
    throw error;
  }

  const topicsJson = json.topics;
  if (!Array.isArray(topicsJson))
    return fail(`field 'topics' must be an array of {name, id, partitions}, got ${JSON.stringify(topicsJson)}`);
  const topics: TopicImage[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  for (const [index, topic] of (topicsJson as readonly JsonValue[]).entries()) {
    const where = `field 'topics[${index}]'`;
    if (!isObject(topic)) return fail(`${where} must be an object {name, id, partitions}, got ${JSON.stringify(topic)}`);
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

  const coordinatorsJson = json.coordinators;
  if (!Array.isArray(coordinatorsJson) || coordinatorsJson.length === 0) {
    return fail(`field 'coordinators' must be a non-empty array of actor ids, got ${JSON.stringify(coordinatorsJson)}`);
  }
  const coordinators: string[] = [];
  for (const [index, coordinator] of (coordinatorsJson as readonly JsonValue[]).entries()) {
    if (typeof coordinator !== "string" || coordinator.length === 0) {
      fail(`field 'coordinators[${index}]' must be a non-empty actor id, got ${JSON.stringify(coordinator)}`);
    } else if (coordinators.includes(coordinator)) {
      fail(`field 'coordinators[${index}]' '${coordinator}' is listed twice`);
    } else {
      coordinators.push(coordinator);
    }
  }
  if (!coordinators.includes(actorId))
    fail(`field 'coordinators' must list this actor's id '${actorId}', got ${JSON.stringify(coordinators)}`);

  const loadMs = json.loadMs;
  if (loadMs !== undefined && (typeof loadMs !== "number" || !Number.isFinite(loadMs) || loadMs < 0)) {
    fail(`field 'loadMs' must be a number of milliseconds >= 0, got ${JSON.stringify(loadMs)}`);
  }

  return { broker, topics, coordinators, loadMs: typeof loadMs === "number" ? loadMs : null };
}
