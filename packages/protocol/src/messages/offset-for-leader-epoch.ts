import type { Static } from "@sinclair/typebox";
import { Int, List, request, response, Str, Struct } from "./schema.js";

/**
 * OffsetForLeaderEpoch (API key 23), v4: the end offset of a leader epoch
 * on the leader. Followers use it to find where to truncate after a
 * leadership change (KIP-101/279); consumers use it to validate positions
 * (KIP-320). `replicaId` is the follower's broker id, or -1 for consumers.
 */
export const OffsetForLeaderEpochRequest = request("OffsetForLeaderEpochRequest", {
  replicaId: Int,
  topics: List(Struct({ topic: Str, partitions: List(Struct({ partition: Int, currentLeaderEpoch: Int, leaderEpoch: Int })) })),
});
export type OffsetForLeaderEpochRequest = Static<typeof OffsetForLeaderEpochRequest>;

/** `UNDEFINED_EPOCH` and `UNDEFINED_EPOCH_OFFSET` of an EpochEndOffset. */
export const UNDEFINED_EPOCH = -1;
export const UNDEFINED_EPOCH_OFFSET = -1;

export const OffsetForLeaderEpochResponse = response("OffsetForLeaderEpochResponse", {
  throttleTimeMs: Int,
  topics: List(Struct({ topic: Str, partitions: List(Struct({ errorCode: Int, partition: Int, leaderEpoch: Int, endOffset: Int })) })),
});
export type OffsetForLeaderEpochResponse = Static<typeof OffsetForLeaderEpochResponse>;
