import type { Static, TObject } from "@sinclair/typebox";
import { AlterPartitionRequest, AlterPartitionResponse } from "./alter-partition.js";
import { BrokerHeartbeatRequest, BrokerHeartbeatResponse } from "./broker-heartbeat.js";
import { BrokerRegistrationRequest, BrokerRegistrationResponse } from "./broker-registration.js";
import {
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
} from "./classic-group.js";
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from "./consumer-group-heartbeat.js";
import { CreateTopicsRequest, CreateTopicsResponse } from "./create-topics.js";
import { FetchRequest, FetchResponse } from "./fetch.js";
import { FindCoordinatorRequest, FindCoordinatorResponse } from "./find-coordinator.js";
import { MetadataRequest, MetadataResponse, UpdateMetadataRequest, UpdateMetadataResponse } from "./metadata.js";
import { OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from "./offset-for-leader-epoch.js";
import {
  ListOffsetsRequest,
  ListOffsetsResponse,
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetFetchRequest,
  OffsetFetchResponse,
} from "./offsets.js";
import { ProduceRequest, ProduceResponse } from "./produce.js";
import { SimAccept, SimConnect, SimDisconnect, SimPing, SimPong } from "./sim.js";
import {
  AddOffsetsToTxnRequest,
  AddOffsetsToTxnResponse,
  AddPartitionsToTxnBrokerRequest,
  AddPartitionsToTxnBrokerResponse,
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  EndTxnRequest,
  EndTxnResponse,
  InitProducerIdRequest,
  InitProducerIdResponse,
  TxnOffsetCommitRequest,
  TxnOffsetCommitResponse,
  WriteTxnMarkersRequest,
  WriteTxnMarkersResponse,
} from "./transactions.js";

/**
 * Every message the simulation carries, in a fixed order. The order is part
 * of the wire format: the codec's shared structures are derived from it, so
 * append new messages at the end.
 */
export const MESSAGE_SCHEMAS = [
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
  HeartbeatRequest,
  HeartbeatResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetFetchRequest,
  OffsetFetchResponse,
  ListOffsetsRequest,
  ListOffsetsResponse,
  FetchRequest,
  FetchResponse,
  ProduceRequest,
  ProduceResponse,
  MetadataRequest,
  MetadataResponse,
  UpdateMetadataRequest,
  UpdateMetadataResponse,
  InitProducerIdRequest,
  InitProducerIdResponse,
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  AddOffsetsToTxnRequest,
  AddOffsetsToTxnResponse,
  EndTxnRequest,
  EndTxnResponse,
  WriteTxnMarkersRequest,
  WriteTxnMarkersResponse,
  TxnOffsetCommitRequest,
  TxnOffsetCommitResponse,
  SimPing,
  SimPong,
  AlterPartitionRequest,
  AlterPartitionResponse,
  BrokerRegistrationRequest,
  BrokerRegistrationResponse,
  BrokerHeartbeatRequest,
  BrokerHeartbeatResponse,
  OffsetForLeaderEpochRequest,
  OffsetForLeaderEpochResponse,
  SimDisconnect,
  SimConnect,
  SimAccept,
  CreateTopicsRequest,
  CreateTopicsResponse,
  AddPartitionsToTxnBrokerRequest,
  AddPartitionsToTxnBrokerResponse,
] as const;

/** Any message the simulation carries: a union discriminated by `type`. */
export type Message = Static<(typeof MESSAGE_SCHEMAS)[number]>;
export type MessageType = Message["type"];
/** The message whose `type` is T. */
export type MessageOf<T extends MessageType> = Extract<Message, { type: T }>;

/** Messages that carry Kafka's request header. */
export type RequestMessage = Extract<Message, { apiVersion: number }>;
/** Messages that answer a request (they carry its correlation id, but no api version). */
export type ResponseMessage = Exclude<Extract<Message, { correlationId: number }>, RequestMessage>;

/** The schema of each message type, by name. */
export const SCHEMA_BY_TYPE: ReadonlyMap<string, TObject> = new Map(
  MESSAGE_SCHEMAS.map((schema) => [(schema.properties.type as { const: string }).const, schema as TObject]),
);

export function isMessageType(name: string): name is MessageType {
  return SCHEMA_BY_TYPE.has(name);
}

export * from "./alter-partition.js";
export * from "./broker-heartbeat.js";
export * from "./broker-registration.js";
export * from "./classic-group.js";
export * from "./consumer-group-heartbeat.js";
export * from "./create-topics.js";
export * from "./fetch.js";
export * from "./find-coordinator.js";
export * from "./metadata.js";
export * from "./offset-for-leader-epoch.js";
export * from "./offsets.js";
export * from "./produce.js";
export * from "./records.js";
export * from "./sim.js";
export * from "./transactions.js";
