import { javaStringHashCode } from "./partition-for.js";

/** A partition of a topic, by name. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/**
 * The keys made so far, per topic by partition. Members and coordinators
 * key maps by tpKey and ask for the same few thousand keys over and over:
 * handing back the one string made the first time saves an allocation per
 * call and lets map lookups match it by identity with its hash already
 * computed. Bounded: past the limits keys are made afresh (equal strings).
 */
const tpKeysByTopic = new Map<string, string[]>();
const MAX_INTERNED_TOPICS = 4096;
const MAX_INTERNED_PARTITIONS = 4096;

/** The canonical string form Kafka prints: `topic-partition`. */
export function tpKey(topic: string, partition: number): string {
  if (!(partition >= 0 && partition < MAX_INTERNED_PARTITIONS && Number.isInteger(partition))) return `${topic}-${partition}`;
  let keys = tpKeysByTopic.get(topic);
  if (keys === undefined) {
    if (tpKeysByTopic.size >= MAX_INTERNED_TOPICS) return `${topic}-${partition}`;
    keys = [];
    tpKeysByTopic.set(topic, keys);
  }
  let key = keys[partition];
  if (key === undefined) {
    key = `${topic}-${partition}`;
    keys[partition] = key;
  }
  return key;
}

/** Parses `topic-partition` (the topic may itself contain dashes). */
export function parseTpKey(key: string): TopicPartition {
  const dash = key.lastIndexOf("-");
  const partition = Number(key.slice(dash + 1));
  if (dash <= 0 || !Number.isInteger(partition) || partition < 0) throw new RangeError(`not a topic-partition: ${key}`);
  return { topic: key.slice(0, dash), partition };
}

/** Orders topic-partitions by topic, then partition (Kafka's usual sort). */
export function compareTp(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * A stable, Kafka-looking topic id (22 base64url characters, like
 * `Uuid.toString()`) derived from the topic name, for scenarios that do not
 * give ids explicitly. The same name always gets the same id.
 */
export function topicIdFor(name: string): string {
  let out = "";
  let h = javaStringHashCode(name) ^ 0x5bd1e995;
  for (let i = 0; i < 22; i++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) ^ (i * 0x9e3779b9);
    h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
    out += BASE64URL[(h >>> 7) & 63];
  }
  return out;
}

/**
 * Partitions grouped by topic name, as observations and tools print them:
 * topics in sorted order, partitions ascending, no empty topics. A plain
 * JSON object, so it can travel in observations and history lines.
 */
export type PartitionsByTopic = { readonly [topic: string]: readonly number[] };

/** The canonical PartitionsByTopic of any collection of topic-partitions. */
export function partitionsByTopic(partitions: Iterable<TopicPartition>): PartitionsByTopic {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = byTopic.get(topic);
    if (list === undefined) byTopic.set(topic, [partition]);
    else list.push(partition);
  }
  // Null prototype: "__proto__" is a legal topic name, and on a plain object it would set the prototype instead.
  const out: Record<string, number[]> = Object.create(null);
  for (const topic of [...byTopic.keys()].sort()) {
    out[topic] = distinctAscending(byTopic.get(topic) ?? []);
  }
  return out;
}

/**
 * The distinct partitions of `list`, ascending: `list` itself when it is
 * already strictly ascending (the usual case: partitions come sorted), else
 * a sorted copy without repeats. The caller hands over a list it owns.
 */
export function distinctAscending(list: number[]): number[] {
  for (let i = 1; i < list.length; i++) {
    if (!((list[i] as number) > (list[i - 1] as number))) return [...new Set(list)].sort((a, b) => a - b);
  }
  return list;
}

/** The topic-partitions of a PartitionsByTopic, topic by topic. */
export function* topicPartitionsOf(byTopic: PartitionsByTopic): Generator<TopicPartition> {
  for (const [topic, partitions] of Object.entries(byTopic)) for (const partition of partitions) yield { topic, partition };
}

/** Kafka's internal topic of group offsets and metadata (`Topic.GROUP_METADATA_TOPIC_NAME`). */
export const GROUP_METADATA_TOPIC_NAME = "__consumer_offsets";

/** Kafka's internal topic of transaction states (`Topic.TRANSACTION_STATE_TOPIC_NAME`). */
export const TRANSACTION_STATE_TOPIC_NAME = "__transaction_state";
