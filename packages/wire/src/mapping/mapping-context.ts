import type { RequestHeader } from "../header.js";
import { WireError } from "../wire-error.js";

/**
 * What the server supplies to map between the wire and kcsim: kcsim names
 * brokers and coordinators by actor id and topics by id, the wire by
 * host/port and (at these versions) by topic name.
 */
export interface WireMappingContext {
  /** kcsim's topic id of a topic name, or undefined if the topic does not exist. */
  topicIdOf(name: string): string | undefined;
  /** The topic name of a kcsim topic id. */
  topicNameOf(topicId: string): string | undefined;
  /** The listener a client reaches a node at (kcsim's `host` is an actor id). */
  endpointOf(nodeId: number): { readonly host: string; readonly port: number } | undefined;
  /** A Kafka Uuid string for a kcsim topic id (ConsumerGroupHeartbeat); identity when the id already is one. */
  kafkaTopicIdOf?(topicId: string): string;
  /** The kcsim topic id of a Kafka Uuid string (ConsumerGroupHeartbeat). */
  kcsimTopicIdOf?(kafkaTopicId: string): string;
}

/** The request-header part of every kcsim request message. */
export function kcsimHeader(header: RequestHeader): { correlationId: number; apiVersion: number; clientId: string } {
  return { correlationId: header.correlationId, apiVersion: header.apiVersion, clientId: header.clientId };
}

/** An int64 from the wire as a JS number; a value beyond 2^53 cannot be carried into kcsim. */
export function toNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new WireError("malformed", `${what} ${value} is beyond what kcsim's messages carry (2^53)`);
  }
  return Number(value);
}
