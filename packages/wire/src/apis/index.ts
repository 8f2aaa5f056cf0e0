import type { ApiDefinition, RequestOf, ResponseOf } from "../schema/index.js";
import { ApiVersionsApi } from "./api-versions.js";
import { ConsumerGroupHeartbeatApi } from "./consumer-group-heartbeat.js";
import { CreateTopicsApi } from "./create-topics.js";
import { FetchApi } from "./fetch.js";
import { FindCoordinatorApi } from "./find-coordinator.js";
import { HeartbeatApi } from "./heartbeat.js";
import { InitProducerIdApi } from "./init-producer-id.js";
import { JoinGroupApi } from "./join-group.js";
import { LeaveGroupApi } from "./leave-group.js";
import { ListOffsetsApi } from "./list-offsets.js";
import { MetadataApi } from "./metadata.js";
import { OffsetCommitApi } from "./offset-commit.js";
import { OffsetFetchApi } from "./offset-fetch.js";
import { ProduceApi } from "./produce.js";
import { SyncGroupApi } from "./sync-group.js";

/** Every API this package speaks, by name. */
export const APIS = {
  Produce: ProduceApi,
  Fetch: FetchApi,
  ListOffsets: ListOffsetsApi,
  Metadata: MetadataApi,
  OffsetCommit: OffsetCommitApi,
  OffsetFetch: OffsetFetchApi,
  FindCoordinator: FindCoordinatorApi,
  JoinGroup: JoinGroupApi,
  Heartbeat: HeartbeatApi,
  LeaveGroup: LeaveGroupApi,
  SyncGroup: SyncGroupApi,
  ApiVersions: ApiVersionsApi,
  CreateTopics: CreateTopicsApi,
  InitProducerId: InitProducerIdApi,
  ConsumerGroupHeartbeat: ConsumerGroupHeartbeatApi,
} as const;

export type Apis = typeof APIS;
export type ApiName = keyof Apis;
export type WireRequestOf<N extends ApiName> = RequestOf<Apis[N]>;
export type WireResponseOf<N extends ApiName> = ResponseOf<Apis[N]>;

/** The APIs by key, ascending. */
export const API_LIST: readonly ApiDefinition<ApiName>[] = Object.values(APIS)
  .map((api) => api as ApiDefinition<ApiName>)
  .sort((a, b) => a.key - b.key);

export const API_BY_KEY: ReadonlyMap<number, ApiDefinition<ApiName>> = new Map(API_LIST.map((api) => [api.key, api]));

export * from "./api-versions.js";
export * from "./consumer-group-heartbeat.js";
export * from "./create-topics.js";
export * from "./fetch.js";
export * from "./find-coordinator.js";
export * from "./heartbeat.js";
export * from "./init-producer-id.js";
export * from "./join-group.js";
export * from "./leave-group.js";
export * from "./list-offsets.js";
export * from "./metadata.js";
export * from "./offset-commit.js";
export * from "./offset-fetch.js";
export * from "./produce.js";
export * from "./sync-group.js";
