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

/**
 * OffsetFetch: v0-7 ask for one group, as an admin-style fetch (no member id, epoch -1); v8+ ask for a batch of
 * groups, kcsim's own form; v9 adds each group's member id and epoch (KIP-848: the coordinator checks them).
 */
export function offsetFetchToKcsim(header: RequestHeader, body: WireRequestOf<"OffsetFetch">): OffsetFetchRequest {
  const topics = (list: readonly { name: string; partitionIndexes: readonly number[] }[] | null) =>
    list === null ? null : list.map((t) => ({ name: t.name, partitionIndexes: [...t.partitionIndexes] }));
  return {
    type: "OffsetFetchRequest",
    ...kcsimHeader(header),
    groups:
      header.apiVersion >= 8
        ? body.groups.map((g) => ({ groupId: g.groupId, memberId: g.memberId, memberEpoch: g.memberEpoch, topics: topics(g.topics) }))
        : [{ groupId: body.groupId, memberId: null, memberEpoch: -1, topics: topics(body.topics) }],
    requireStable: body.requireStable,
  };
}

/**
 * v8+ answer each group apart; v0-7 the single group's result: below v2 (no top-level error) a group error goes into
 * every partition, below v5 no leader epoch.
 */
export function offsetFetchToWire(response: OffsetFetchResponse, version: number): WireResponseOf<"OffsetFetch"> {
  if (version >= 8) {
    return {
      throttleTimeMs: response.throttleTimeMs,
      topics: [],
      errorCode: 0,
      groups: response.groups.map((g) => ({
        groupId: g.groupId,
        errorCode: g.errorCode,
        topics: g.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => committedToWire(p, p.errorCode, true)) })),
      })),
    };
  }
  const group = response.groups[0];
  const groupError = group?.errorCode ?? 0;
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: version >= 2 ? groupError : 0,
    groups: [],
    topics: (group?.topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => committedToWire(p, version < 2 && groupError !== 0 ? groupError : p.errorCode, version >= 5)),
    })),
  };
}

/** One partition's committed offset as OffsetFetch writes it; the leader epoch only where the version has it (v5+). */
function committedToWire(
  p: OffsetFetchResponse["groups"][number]["topics"][number]["partitions"][number],
  errorCode: number,
  withEpoch: boolean,
) {
  return {
    partitionIndex: p.partitionIndex,
    committedOffset: BigInt(p.committedOffset),
    committedLeaderEpoch: withEpoch ? p.committedLeaderEpoch : -1,
    metadata: p.metadata,
    errorCode,
  };
}

/**
 * ListOffsets v0's MaxNumOffsets is not carried: kcsim answers one offset, which v0 returns as a one-entry list.
 * v4+ carry the client's current leader epoch (checked against the leader's: FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH).
 */
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
        currentLeaderEpoch: p.currentLeaderEpoch,
        timestamp: toNumber(p.timestamp, "timestamp"),
      })),
    })),
  };
}

/** The leader epoch of the offset found goes out from v4. */
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
              leaderEpoch: -1,
            }
          : {
              partitionIndex: p.partitionIndex,
              errorCode: p.errorCode,
              oldStyleOffsets: [],
              timestamp: BigInt(p.timestamp),
              offset: BigInt(p.offset),
              leaderEpoch: version >= 4 ? p.leaderEpoch : -1,
            },
      ),
    })),
  };
}
