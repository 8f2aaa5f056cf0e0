import type { Static } from "@sinclair/typebox";
import { Bool, Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/** OffsetCommit (8), OffsetFetch (9) and ListOffsets (2), spec 5. */
export const OffsetCommitRequestPartition = Struct({
  partitionIndex: Int,
  committedOffset: Int,
  committedLeaderEpoch: Int,
  committedMetadata: Nullable(Str),
});
export type OffsetCommitRequestPartition = Static<typeof OffsetCommitRequestPartition>;

export const OffsetCommitRequest = request("OffsetCommitRequest", {
  groupId: Str,
  generationIdOrMemberEpoch: Int,
  memberId: Str,
  groupInstanceId: Nullable(Str),
  topics: List(Struct({ name: Str, partitions: List(OffsetCommitRequestPartition) })),
});
export type OffsetCommitRequest = Static<typeof OffsetCommitRequest>;

export const PartitionErrors = List(Struct({ name: Str, partitions: List(Struct({ partitionIndex: Int, errorCode: Int })) }));
export type PartitionErrors = Static<typeof PartitionErrors>;

export const OffsetCommitResponse = response("OffsetCommitResponse", {
  throttleTimeMs: Int,
  topics: PartitionErrors,
});
export type OffsetCommitResponse = Static<typeof OffsetCommitResponse>;

export const OffsetFetchRequest = request("OffsetFetchRequest", {
  groups: List(
    Struct({
      groupId: Str,
      memberId: Nullable(Str),
      memberEpoch: Int,
      topics: Nullable(List(Struct({ name: Str, partitionIndexes: List(Int) }))),
    }),
  ),
  requireStable: Bool,
});
export type OffsetFetchRequest = Static<typeof OffsetFetchRequest>;

export const OffsetFetchResponsePartition = Struct({
  partitionIndex: Int,
  committedOffset: Int,
  committedLeaderEpoch: Int,
  metadata: Nullable(Str),
  errorCode: Int,
});
export type OffsetFetchResponsePartition = Static<typeof OffsetFetchResponsePartition>;

export const OffsetFetchResponse = response("OffsetFetchResponse", {
  throttleTimeMs: Int,
  groups: List(
    Struct({
      groupId: Str,
      topics: List(Struct({ name: Str, partitions: List(OffsetFetchResponsePartition) })),
      errorCode: Int,
    }),
  ),
});
export type OffsetFetchResponse = Static<typeof OffsetFetchResponse>;

/** ListOffsets special timestamps (`ListOffsetsRequest.EARLIEST_TIMESTAMP` / `LATEST_TIMESTAMP`). */
export const ListOffsetsTimestamp = { LATEST: -1, EARLIEST: -2 } as const;

export const ListOffsetsRequest = request("ListOffsetsRequest", {
  replicaId: Int,
  isolationLevel: Int,
  topics: List(
    Struct({
      name: Str,
      partitions: List(Struct({ partitionIndex: Int, currentLeaderEpoch: Int, timestamp: Int })),
    }),
  ),
});
export type ListOffsetsRequest = Static<typeof ListOffsetsRequest>;

export const ListOffsetsResponse = response("ListOffsetsResponse", {
  throttleTimeMs: Int,
  topics: List(
    Struct({
      name: Str,
      partitions: List(Struct({ partitionIndex: Int, errorCode: Int, timestamp: Int, offset: Int, leaderEpoch: Int })),
    }),
  ),
});
export type ListOffsetsResponse = Static<typeof ListOffsetsResponse>;
