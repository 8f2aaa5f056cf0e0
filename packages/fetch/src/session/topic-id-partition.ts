import { type FetchPartition, tpKey } from "@kcsim/protocol";

/** Kafka's `Uuid.ZERO_UUID` as a string: "no topic id" (pre-v13 clients). */
export const ZERO_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAA";

/** A partition named by topic id (Kafka's `TopicIdPartition`, as the broker side sees it). */
export interface TopicIdPartition {
  readonly topicId: string;
  readonly partition: number;
}

/**
 * The map key of a partition by topic id: `tpKey` over the topic id, so the
 * same partition gets the same (interned) string each time, and the session
 * maps it is looked up in hash and compare nothing new (it was a new
 * concatenation per lookup). Ids and names never share a map.
 */
export function topicIdPartitionKey(topicId: string, partition: number): string {
  return tpKey(topicId, partition);
}

/**
 * One partition a fetch reads, with the fetch parameters in force: the
 * request's `FetchPartition` plus its topic id. The broker-side contexts hand
 * these out (Kafka's `FetchContext.foreachPartition`) in the order the log
 * layer must read them.
 */
export interface FetchTarget extends FetchPartition {
  readonly topicId: string;
}
