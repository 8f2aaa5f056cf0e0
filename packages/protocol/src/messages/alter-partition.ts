import type { Static } from "@sinclair/typebox";
import { Int, List, request, response, Str, Struct } from "./schema.js";

/**
 * AlterPartition (API key 56), v2 shape (topic ids, plain ISR lists): a
 * partition leader asks the controller to change the partition's ISR.
 * `leaderRecoveryState` is 0 (RECOVERED) or 1 (RECOVERING).
 */
export const AlterPartitionRequest = request("AlterPartitionRequest", {
  brokerId: Int,
  brokerEpoch: Int,
  topics: List(
    Struct({
      topicId: Str,
      partitions: List(Struct({ partitionIndex: Int, leaderEpoch: Int, newIsr: List(Int), leaderRecoveryState: Int, partitionEpoch: Int })),
    }),
  ),
});
export type AlterPartitionRequest = Static<typeof AlterPartitionRequest>;

export const AlterPartitionResponse = response("AlterPartitionResponse", {
  throttleTimeMs: Int,
  errorCode: Int,
  topics: List(
    Struct({
      topicId: Str,
      partitions: List(
        Struct({
          partitionIndex: Int,
          errorCode: Int,
          leaderId: Int,
          leaderEpoch: Int,
          isr: List(Int),
          leaderRecoveryState: Int,
          partitionEpoch: Int,
        }),
      ),
    }),
  ),
});
export type AlterPartitionResponse = Static<typeof AlterPartitionResponse>;
