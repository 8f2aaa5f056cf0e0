import type {
  ListOffsetsRequest,
  ListOffsetsResponse,
  OffsetCommitRequest,
  OffsetCommitResponse,
  OffsetFetchRequest,
  OffsetFetchResponse,
} from "@kcsim/protocol";
import type { WireRequestOf, WireResponseOf } from "../apis/index.js";
import type { RequestHeader } from "../header.js";
import { kcsimHeader, toNumber } from "./mapping-context.js";

/** OffsetCommit: v1's per-partition commit timestamp and v2-4's retention time are not carried (kcsim keeps offsets by broker config). */
export function offsetCommitToKcsim(header: RequestHeader, body: WireRequestOf<"OffsetCommit">): OffsetCommitRequest {
  return {
    type: "OffsetCommitRequest",
    ...kcsimHeader(header),
    groupId: body.groupId,
    generationIdOrMemberEpoch: body.generationIdOrMemberEpoch,
    memberId: body.memberId,
    groupInstanceId: body.groupInstanceId,
    topics: body.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        committedOffset: toNumber(p.committedOffset, "committed offset"),
        committedLeaderEpoch: p.committedLeaderEpoch,
        committedMetadata: p.committedMetadata,
      })),
    })),
  };
}

export function offsetCommitToWire(response: OffsetCommitResponse): WireResponseOf<"OffsetCommit"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    topics: response.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ ...p })) })),
  };
}

/** OffsetFetch v0-7 asks for one group: kcsim's batched form with no member id and epoch -1 (an admin-style fetch, as v0-7 are). */
export function offsetFetchToKcsim(header: RequestHeader, body: WireRequestOf<"OffsetFetch">): OffsetFetchRequest {
  return {
    type: "OffsetFetchRequest",
    ...kcsimHeader(header),
    groups: [
      {
        groupId: body.groupId,
        memberId: null,
        memberEpoch: -1,
        topics: body.topics === null ? null : body.topics.map((t) => ({ name: t.name, partitionIndexes: [...t.partitionIndexes] })),
      },
    ],
    requireStable: body.requireStable,
  };
}

/** The single group's result; below v2 (no top-level error) a group error goes into every partition; below v5 no leader epoch. */
export function offsetFetchToWire(response: OffsetFetchResponse, version: number): WireResponseOf<"OffsetFetch"> {
  const group = response.groups[0];
  const groupError = group?.errorCode ?? 0;
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: version >= 2 ? groupError : 0,
    topics: (group?.topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        committedOffset: BigInt(p.committedOffset),
        committedLeaderEpoch: version >= 5 ? p.committedLeaderEpoch : -1,
        metadata: p.metadata,
        errorCode: version < 2 && groupError !== 0 ? groupError : p.errorCode,
      })),
    })),
  };
}

/** ListOffsets v0's MaxNumOffsets is not carried: kcsim answers one offset, which v0 returns as a one-entry list. */
export function listOffsetsToKcsim(header: RequestHeader, body: WireRequestOf<"ListOffsets">): ListOffsetsRequest {
  return {
    type: "ListOffsetsRequest",
    ...kcsimHeader(header),
    replicaId: body.replicaId,
    isolationLevel: body.isolationLevel,
    topics: body.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        currentLeaderEpoch: -1,
        timestamp: toNumber(p.timestamp, "timestamp"),
      })),
    })),
  };
}

/** Leader epochs (v4+) are not carried at these versions. */
export function listOffsetsToWire(response: ListOffsetsResponse, version: number): WireResponseOf<"ListOffsets"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    topics: response.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) =>
        version === 0
          ? {
              partitionIndex: p.partitionIndex,
              errorCode: p.errorCode,
              oldStyleOffsets: p.offset >= 0 ? [BigInt(p.offset)] : [],
              timestamp: -1n,
              offset: -1n,
            }
          : {
              partitionIndex: p.partitionIndex,
              errorCode: p.errorCode,
              oldStyleOffsets: [],
              timestamp: BigInt(p.timestamp),
              offset: BigInt(p.offset),
            },
      ),
    })),
  };
}
