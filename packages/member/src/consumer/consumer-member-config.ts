import {
  type ConsumerConfig,
  DEFAULT_TRANSACTION_VERSION,
  isTransactionVersion,
  type JsonValue,
  MAX_TRANSACTION_VERSION,
  MIN_TRANSACTION_VERSION,
  PlantedBugs,
  resolveConsumerConfig,
  topicIdFor,
} from "@kcsim/protocol";
import { PROCESSING_FIELDS, type ProcessingConfig, parseProcessingConfig } from "../processing/processing-config.js";

/**
 * The JSON configuration of a "consumer" actor (a KIP-848 consumer,
 * group.protocol=consumer) or of a "classic-consumer" actor (the classic
 * client, group.protocol=classic: same shape), validated and with defaults
 * filled in.
 */
export interface ConsumerMemberConfig {
  /** Kafka consumer settings (resolveConsumerConfig); group.protocol is the actor's protocol. */
  readonly consumer: ConsumerConfig;
  /** Actor ids of the brokers that answer FindCoordinator. */
  readonly bootstrap: readonly string[];
  /** Topics subscribed at start (the first poll() joins); empty = start unsubscribed. */
  readonly subscription: readonly string[];
  /** Cluster metadata: topic names <-> ids (the heartbeat carries ids), partition counts (the classic leader assigns them). */
  readonly topics: readonly TopicMetadataConfig[];
  readonly app: ApplicationConfig;
  /** Where records come from. */
  readonly source: RecordSourceConfig;
  /** Transaction coordinator actor ids (a transactional consume-process-produce application's producer looks its coordinator up there). */
  readonly transactionCoordinators: readonly string[];
  /**
   * The cluster's finalized `transaction.version` feature level as the
   * transactional output's producer reads it (0 to 2, default 0; 2: KIP-890
   * part 2's transactions). Fixed for the run.
   */
  readonly transactionVersion: number;
  /** Planted bugs of the consumer kind to enable (PLANTED_BUGS in @kcsim/protocol); normally none. */
  readonly plantedBugs: PlantedBugs;
}

export interface TopicMetadataConfig {
  readonly name: string;
  readonly id: string;
  readonly partitions: number;
}

/** How offsets are committed: enable.auto.commit, commitSync() after each processed batch, or never. */
export type CommitMode = "auto" | "sync-after-batch" | "none";

/**
 * The simulated application around the consumer: its poll loop, its
 * rebalance listener, and what it does with each batch (ProcessingConfig).
 */
export interface ApplicationConfig extends ProcessingConfig {
  readonly processingMsPerRecord: number;
  readonly pollTimeoutMs: number;
  readonly revokeCallbackMs: number;
  readonly assignCallbackMs: number;
  readonly lostCallbackMs: number;
  readonly commit: CommitMode;
}

/** Records from an in-memory log per partition (SyntheticRecordSource): no brokers, no data path. */
export interface SyntheticSourceConfig {
  readonly kind: "synthetic";
  readonly recordsPerSecondPerPartition: number;
  readonly recordBytes: number;
}

/**
 * Records from the data brokers through the client Fetcher of @kcsim/fetch
 * (Fetch, ListOffsets and Metadata requests); its settings (isolation.level,
 * fetch sizes, timeouts, backoffs) come from the consumer config.
 */
export interface FetchSourceConfig {
  readonly kind: "fetch";
  /** Actor ids of the brokers the fetcher bootstraps its metadata from. */
  readonly brokers: readonly string[];
}

export type RecordSourceConfig = SyntheticSourceConfig | FetchSourceConfig;

export class ConsumerMemberConfigError extends Error {
  override readonly name = "ConsumerMemberConfigError";
}

type JsonObject = { readonly [key: string]: JsonValue };

const TOP_LEVEL_FIELDS = [
  "consumer",
  "bootstrap",
  "subscription",
  "topics",
  "app",
  "source",
  "transactionCoordinators",
  "transactionVersion",
  "plantedBugs",
];
const APP_FIELDS = [
  "processingMsPerRecord",
  "pollTimeoutMs",
  "revokeCallbackMs",
  "assignCallbackMs",
  "lostCallbackMs",
  "commit",
  ...PROCESSING_FIELDS,
];
const SOURCE_FIELDS: Readonly<Record<RecordSourceConfig["kind"], readonly string[]>> = {
  synthetic: ["kind", "recordsPerSecondPerPartition", "recordBytes"],
  fetch: ["kind", "brokers"],
};
const SOURCE_KINDS = Object.keys(SOURCE_FIELDS) as RecordSourceConfig["kind"][];
const COMMIT_MODES: readonly CommitMode[] = ["auto", "sync-after-batch", "none"];

function fail(field: string, problem: string): never {
  throw new ConsumerMemberConfigError(`consumer member config: '${field}' ${problem}`);
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function objectAt(value: JsonValue | undefined, field: string, allowed: readonly string[]): JsonObject {
  if (value === undefined) return {};
  if (!isObject(value)) fail(field, `must be an object, got ${JSON.stringify(value)}`);
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined) fail(field === "" ? unknown : `${field}.${unknown}`, "is not a known field");
  return value;
}

/** Times of the application and rates of a synthetic source stay within what a run can hold (a day; a million records/s). */
const MAX_APP_MS = 86_400_000;
const MAX_RECORDS_PER_SECOND = 1_000_000;
const MAX_RECORD_BYTES = 100 * 1024 * 1024;

function numberAt(object: JsonObject, key: string, field: string, fallback: number, check: (n: number) => boolean, rule: string): number {
  const value = object[key];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || !check(value)) fail(field, `must be ${rule}, got ${JSON.stringify(value)}`);
  return value;
}

function stringListAt(value: JsonValue | undefined, field: string, allowEmpty: boolean): string[] {
  if (!Array.isArray(value)) fail(field, `must be a list of strings, got ${JSON.stringify(value ?? null)}`);
  const list = value as readonly JsonValue[];
  const bad = list.find((item) => typeof item !== "string" || item === "");
  if (bad !== undefined) fail(field, `must hold non-empty strings, got ${JSON.stringify(bad)}`);
  if (!allowEmpty && list.length === 0) fail(field, "must not be empty");
  return list as string[];
}

function parseTopics(value: JsonValue | undefined): TopicMetadataConfig[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) fail("topics", `must be a list of {name, id, partitions}, got ${JSON.stringify(value)}`);
  const names = new Set<string>();
  const ids = new Set<string>();
  return (value as readonly JsonValue[]).map((entry, i) => {
    const topic = objectAt(entry, `topics[${i}]`, ["name", "id", "partitions"]);
    const name = topic.name;
    if (typeof name !== "string" || name === "")
      fail(`topics[${i}].name`, `must be a non-empty string, got ${JSON.stringify(name ?? null)}`);
    const id = topic.id ?? topicIdFor(name);
    if (typeof id !== "string" || id === "") fail(`topics[${i}].id`, `must be a non-empty string, got ${JSON.stringify(id)}`);
    const partitions = topic.partitions;
    if (typeof partitions !== "number" || !Number.isInteger(partitions) || partitions < 1) {
      fail(`topics[${i}].partitions`, `must be a positive integer, got ${JSON.stringify(partitions ?? null)}`);
    }
    if (names.has(name)) fail(`topics[${i}].name`, `repeats topic ${JSON.stringify(name)}`);
    if (ids.has(id)) fail(`topics[${i}].id`, `repeats topic id ${JSON.stringify(id)}`);
    names.add(name);
    ids.add(id);
    return { name, id, partitions };
  });
}

/** The group.protocol an actor kind speaks. */
export type MemberGroupProtocol = "consumer" | "classic";

function parseConsumerSettings(value: JsonValue | undefined, groupProtocol: MemberGroupProtocol): ConsumerConfig {
  let consumer: ConsumerConfig;
  try {
    consumer = resolveConsumerConfig(value ?? {});
  } catch (error) {
    fail("consumer", `is invalid: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (consumer["group.protocol"] !== groupProtocol)
    fail("consumer.group.protocol", `must be "${groupProtocol}" for this actor, got "${consumer["group.protocol"]}"`);
  if (consumer["group.id"] === "") fail("consumer.group.id", "must be set (a non-empty group id)");
  if (consumer["group.instance.id"] === "") fail("consumer.group.instance.id", "must be null or non-empty");
  return consumer;
}

/** The commit mode a consume-process-produce application needs: offsets go with the transaction, or commitSync after the sends. */
function commitModeOf(processing: ProcessingConfig): CommitMode | null {
  if (processing.output === null) return null;
  return processing.output.transactional ? "none" : "sync-after-batch";
}

function parseApp(value: JsonValue | undefined, consumer: ConsumerConfig, explicitAutoCommit: boolean): ApplicationConfig {
  const app = objectAt(value, "app", APP_FIELDS);
  const nonNegative = (n: number) => n >= 0 && n <= MAX_APP_MS;
  const processing = parseProcessingConfig(app, fail);
  const required = commitModeOf(processing);
  if (required !== null && explicitAutoCommit && consumer["enable.auto.commit"]) {
    fail("consumer.enable.auto.commit", 'must be false for app.mode "consume-process-produce" (offsets are committed after each batch)');
  }
  const defaultCommit: CommitMode = required ?? (consumer["enable.auto.commit"] ? "auto" : "none");
  const commit = app.commit ?? defaultCommit;
  if (typeof commit !== "string" || !COMMIT_MODES.includes(commit as CommitMode)) {
    fail("app.commit", `must be one of ${COMMIT_MODES.join(", ")}, got ${JSON.stringify(commit)}`);
  }
  if (required !== null && commit !== required) {
    fail("app.commit", `must be "${required}" for this consume-process-produce output (got "${commit}")`);
  }
  if (required === null && explicitAutoCommit && (commit === "auto") !== consumer["enable.auto.commit"]) {
    fail("app.commit", `"${commit}" contradicts consumer.enable.auto.commit = ${consumer["enable.auto.commit"]}`);
  }
  return {
    processingMsPerRecord: numberAt(
      app,
      "processingMsPerRecord",
      "app.processingMsPerRecord",
      1,
      nonNegative,
      `a number from 0 to ${MAX_APP_MS}`,
    ),
    // At least a millisecond: an empty poll that took no time (or a microsecond) would spin at one instant.
    pollTimeoutMs: numberAt(
      app,
      "pollTimeoutMs",
      "app.pollTimeoutMs",
      1000,
      (n) => n >= 1 && n <= MAX_APP_MS,
      `a number from 1 to ${MAX_APP_MS}`,
    ),
    revokeCallbackMs: numberAt(app, "revokeCallbackMs", "app.revokeCallbackMs", 0, nonNegative, `a number from 0 to ${MAX_APP_MS}`),
    assignCallbackMs: numberAt(app, "assignCallbackMs", "app.assignCallbackMs", 0, nonNegative, `a number from 0 to ${MAX_APP_MS}`),
    lostCallbackMs: numberAt(app, "lostCallbackMs", "app.lostCallbackMs", 0, nonNegative, `a number from 0 to ${MAX_APP_MS}`),
    commit: commit as CommitMode,
    ...processing,
  };
}

/** What a consume-process-produce application needs of the rest of the config: the output topic, brokers, coordinators. */
function checkOutput(
  app: ApplicationConfig,
  topics: readonly TopicMetadataConfig[],
  source: RecordSourceConfig,
  coordinators: readonly string[],
): void {
  const output = app.output;
  if (output === null) return;
  if (!topics.some((topic) => topic.name === output.topic))
    fail("app.output.topic", `names no topic of 'topics', got ${JSON.stringify(output.topic)}`);
  if (source.kind !== "fetch") fail("source.kind", 'must be "fetch" for app.mode "consume-process-produce" (results go to the brokers)');
  if (output.transactional && coordinators.length === 0) {
    fail("transactionCoordinators", "must name at least one transaction coordinator for a transactional output");
  }
}

function isSourceKind(kind: JsonValue): kind is RecordSourceConfig["kind"] {
  return typeof kind === "string" && (SOURCE_KINDS as readonly string[]).includes(kind);
}

function parseSource(value: JsonValue | undefined): RecordSourceConfig {
  // A source that is not an object is reported by objectAt.
  const kind = isObject(value) ? (value.kind ?? "synthetic") : "synthetic";
  if (!isSourceKind(kind)) fail("source.kind", `must be ${SOURCE_KINDS.map((k) => `"${k}"`).join(" or ")}, got ${JSON.stringify(kind)}`);
  const source = objectAt(value, "source", SOURCE_FIELDS[kind]);
  if (kind === "fetch") return { kind, brokers: stringListAt(source.brokers, "source.brokers", false) };
  return {
    kind: "synthetic",
    recordsPerSecondPerPartition: numberAt(
      source,
      "recordsPerSecondPerPartition",
      "source.recordsPerSecondPerPartition",
      10,
      (n) => n >= 0 && n <= MAX_RECORDS_PER_SECOND,
      `a number from 0 to ${MAX_RECORDS_PER_SECOND}`,
    ),
    recordBytes: numberAt(
      source,
      "recordBytes",
      "source.recordBytes",
      100,
      (n) => Number.isInteger(n) && n > 0 && n <= MAX_RECORD_BYTES,
      `an integer from 1 to ${MAX_RECORD_BYTES}`,
    ),
  };
}

/**
 * Validates a consumer actor's JSON config and fills its defaults; the
 * config must ask for `groupProtocol` (the actor kind's protocol). A bad
 * config throws a ConsumerMemberConfigError whose one-line message names
 * the offending field.
 */
export function parseConsumerMemberConfig(json: JsonValue, groupProtocol: MemberGroupProtocol = "consumer"): ConsumerMemberConfig {
  if (!isObject(json)) fail("(root)", `must be an object, got ${JSON.stringify(json)}`);
  const root = objectAt(json, "", TOP_LEVEL_FIELDS);
  const consumer = parseConsumerSettings(root.consumer, groupProtocol);
  const explicitAutoCommit = isObject(root.consumer) && "enable.auto.commit" in root.consumer;
  const bootstrap = stringListAt(root.bootstrap, "bootstrap", false);
  const subscription = root.subscription === undefined ? [] : stringListAt(root.subscription, "subscription", true);
  const topics = parseTopics(root.topics);
  const app = parseApp(root.app, consumer, explicitAutoCommit);
  const source = parseSource(root.source);
  const transactionCoordinators =
    root.transactionCoordinators === undefined ? [] : stringListAt(root.transactionCoordinators, "transactionCoordinators", true);
  checkOutput(app, topics, source, transactionCoordinators);
  const transactionVersion = numberAt(
    root,
    "transactionVersion",
    "transactionVersion",
    DEFAULT_TRANSACTION_VERSION,
    isTransactionVersion,
    `an integer from ${MIN_TRANSACTION_VERSION} to ${MAX_TRANSACTION_VERSION}`,
  );
  let plantedBugs = PlantedBugs.NONE;
  try {
    plantedBugs = PlantedBugs.fromField(root.plantedBugs);
  } catch (error) {
    fail("plantedBugs", error instanceof Error ? error.message.replace(/^config 'plantedBugs' /, "") : String(error));
  }
  return {
    consumer,
    bootstrap,
    subscription: [...new Set(subscription)].sort(),
    topics,
    app,
    source,
    transactionCoordinators,
    transactionVersion,
    plantedBugs,
  };
}
