import type { Static } from "@sinclair/typebox";
import { Bool, Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/**
 * CreateTopics (API key 19), as a broker forwards it to the KRaft
 * controller (Kafka's `ControllerApis.handleCreateTopics`, and
 * `AutoTopicCreationManager` for topics a Metadata request auto-creates).
 * `numPartitions` / `replicationFactor` -1 take the broker defaults
 * (num.partitions, default.replication.factor, KIP-464). No manual replica
 * assignments and no topic configs: the controller places replicas itself.
 */
export const CreateTopicsRequest = request("CreateTopicsRequest", {
  topics: List(Struct({ name: Str, numPartitions: Int, replicationFactor: Int })),
  validateOnly: Bool,
});
export type CreateTopicsRequest = Static<typeof CreateTopicsRequest>;

export const CreateTopicsResponse = response("CreateTopicsResponse", {
  throttleTimeMs: Int,
  topics: List(
    Struct({ name: Str, topicId: Str, errorCode: Int, errorMessage: Nullable(Str), numPartitions: Int, replicationFactor: Int }),
  ),
});
export type CreateTopicsResponse = Static<typeof CreateTopicsResponse>;
