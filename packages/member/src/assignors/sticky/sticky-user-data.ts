import type { TopicPartition } from "@kcsim/protocol";
import { javaHashMapIterationOrder } from "../java-hash-order.js";
import { KafkaStructReader, KafkaStructWriter } from "./kafka-struct-bytes.js";

/**
 * What the sticky assignors learn about a member's previous ownership
 * (Kafka's `AbstractStickyAssignor.MemberData`); `generation` null means the
 * member sent none.
 */
export interface StickyMemberData {
  readonly partitions: readonly TopicPartition[];
  readonly generation: number | null;
}

/** Kafka's `AbstractStickyAssignor.DEFAULT_GENERATION`. */
export const DEFAULT_GENERATION = -1;

/** Topic order of Kafka's `CollectionUtils.groupPartitionsByTopic` (a HashMap), partitions in list order. */
function groupLikeJava(partitions: readonly TopicPartition[]): { topic: string; partitions: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = byTopic.get(topic);
    if (list === undefined) byTopic.set(topic, [partition]);
    else list.push(partition);
  }
  return javaHashMapIterationOrder([...byTopic.keys()]).map((topic) => ({ topic, partitions: byTopic.get(topic) ?? [] }));
}

function writeAssignment(writer: KafkaStructWriter, partitions: readonly TopicPartition[]): KafkaStructWriter {
  return writer.array(groupLikeJava(partitions), (w, entry) => {
    w.string(entry.topic).array(entry.partitions, (pw, partition) => pw.int32(partition));
  });
}

/** `StickyAssignor` user data, schema V1: {previous_assignment: [{topic, partitions}], generation}. */
export function encodeStickyUserData(partitions: readonly TopicPartition[], generation: number): Uint8Array {
  return writeAssignment(new KafkaStructWriter(), partitions).int32(generation).toBytes();
}

/** `StickyAssignor` user data, schema V0 (before KIP-341): the previous assignment only. */
export function encodeStickyUserDataV0(partitions: readonly TopicPartition[]): Uint8Array {
  return writeAssignment(new KafkaStructWriter(), partitions).toBytes();
}

function readAssignment(reader: KafkaStructReader): TopicPartition[] {
  return reader
    .array((r) => {
      const topic = r.string();
      return r.array((pr) => pr.int32()).map((partition) => ({ topic, partition }));
    })
    .flat();
}

/**
 * `StickyAssignor.memberData`: no user data means no previous assignment and
 * no generation; V1 is tried first, then V0 (no generation); bytes neither
 * schema reads count as an empty assignment of generation -1.
 */
export function decodeStickyUserData(userData: Uint8Array | null): StickyMemberData {
  if (userData === null || userData.length === 0) return { partitions: [], generation: null };
  try {
    const reader = new KafkaStructReader(userData);
    const partitions = readAssignment(reader);
    return { partitions, generation: reader.int32() };
  } catch {
    try {
      return { partitions: readAssignment(new KafkaStructReader(userData)), generation: null };
    } catch {
      return { partitions: [], generation: DEFAULT_GENERATION };
    }
  }
}

/** `CooperativeStickyAssignor` user data, schema V0: {generation}. */
export function encodeCooperativeUserData(generation: number): Uint8Array {
  return new KafkaStructWriter().int32(generation).toBytes();
}

/** Reads the generation from cooperative-sticky user data; throws when the bytes hold none. */
export function decodeCooperativeUserData(userData: Uint8Array): number {
  return new KafkaStructReader(userData).int32();
}
