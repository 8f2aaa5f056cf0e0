import type { FetchRequest, FetchResponse, RecordBatch } from "@kcsim/protocol";
import type { WireRequestOf, WireResponseOf } from "../apis/index.js";
import type { RequestHeader } from "../header.js";
import { encodeRecordBatch } from "../records/record-batch-codec.js";
import { ZERO_UUID } from "../schema/index.js";
import { WireError } from "../wire-error.js";
import { kcsimHeader, toNumber, type WireMappingContext } from "./mapping-context.js";
import { batchToWire } from "./record-batch-mapping.js";

export interface MappedFetch {
  readonly request: FetchRequest;
  /**
   * Topics the context does not know, as the request names them (a name below v13, a Kafka Uuid from v13): the
   * endpoint answers UNKNOWN_TOPIC_OR_PARTITION, or UNKNOWN_TOPIC_ID from v13, for them.
   */
  readonly unknownTopics: readonly string[];
}

/**
 * Fetch v4-12 name topics, v13 names them by their Kafka Uuids; kcsim's
 * request carries kcsim topic ids (v13 shape), so the context resolves
 * either. Fields a version lacks take Kafka's defaults (session 0/-1, no
 * rack, epochs -1).
 */
export function fetchToKcsim(
  header: RequestHeader,
  body: WireRequestOf<"Fetch">,
  context: Pick<WireMappingContext, "topicIdOf" | "topicNameOf" | "kcsimTopicIdOf">,
): MappedFetch {
  const byId = header.apiVersion >= 13;
  const unknownTopics: string[] = [];
  const topicId = (t: { readonly topic: string; readonly topicId: string }): string | undefined => {
    const key = byId ? t.topicId : t.topic;
    const id = byId ? kcsimIdOf(context, t.topicId) : context.topicIdOf(t.topic);
    if (id === undefined && !unknownTopics.includes(key)) unknownTopics.push(key);
    return id;
  };
  const topics: FetchRequest["topics"] = [];
  for (const t of body.topics) {
    const id = topicId(t);
    if (id === undefined) continue;
    topics.push({
      topicId: id,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        currentLeaderEpoch: p.currentLeaderEpoch,
        fetchOffset: toNumber(p.fetchOffset, "fetch offset"),
        lastFetchedEpoch: p.lastFetchedEpoch,
        logStartOffset: toNumber(p.logStartOffset, "log start offset"),
        partitionMaxBytes: p.partitionMaxBytes,
      })),
    });
  }
  const forgottenTopicsData: FetchRequest["forgottenTopicsData"] = [];
  for (const t of body.forgottenTopicsData) {
    const id = topicId(t);
    if (id !== undefined) forgottenTopicsData.push({ topicId: id, partitions: [...t.partitions] });
  }
  return {
    request: {
      type: "FetchRequest",
      ...kcsimHeader(header),
      replicaId: body.replicaId,
      maxWaitMs: body.maxWaitMs,
      minBytes: body.minBytes,
      maxBytes: body.maxBytes,
      isolationLevel: body.isolationLevel,
      sessionId: body.sessionId,
      sessionEpoch: body.sessionEpoch,
      topics,
      forgottenTopicsData,
      rackId: body.rackId,
    },
    unknownTopics,
  };
}

/** The kcsim topic id a Kafka Uuid names, if it names a topic the context knows. */
function kcsimIdOf(context: Pick<WireMappingContext, "topicNameOf" | "kcsimTopicIdOf">, kafkaId: string): string | undefined {
  const id = context.kcsimTopicIdOf?.(kafkaId) ?? kafkaId;
  return context.topicNameOf(id) === undefined ? undefined : id;
}

/** The bytes of a batch the server stored when a real client produced it, if any. */
export type StoredBatchBytes = (topic: string, partition: number, batch: RecordBatch) => Uint8Array | undefined;

/**
 * kcsim's answer on the wire: topic ids back to names (below v13) or to
 * their Kafka Uuids (v13), records as the stored real bytes where there are
 * some, else synthesized (record-batch-mapping.ts). Records are never null
 * (librdkafka 2.0.2 rejects a null record set). kcsim's brokers do not
 * report diverging epochs, current leaders or snapshots: those tagged
 * fields stay at their defaults, which is also what keeps them off the wire.
 */
export function fetchToWire(
  response: FetchResponse,
  context: Pick<WireMappingContext, "topicNameOf" | "kafkaTopicIdOf">,
  stored?: StoredBatchBytes,
  version = 12,
): WireResponseOf<"Fetch"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: response.errorCode,
    sessionId: response.sessionId,
    responses: response.responses.map((t) => {
      const name = context.topicNameOf(t.topicId);
      if (name === undefined) throw new WireError("unencodable", `no topic name for id ${t.topicId}`);
      return {
        topic: version < 13 ? name : "",
        topicId: version >= 13 ? (context.kafkaTopicIdOf?.(t.topicId) ?? t.topicId) : ZERO_UUID,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: p.errorCode,
          highWatermark: BigInt(p.highWatermark),
          lastStableOffset: BigInt(p.lastStableOffset),
          logStartOffset: BigInt(p.logStartOffset),
          divergingEpoch: { epoch: -1, endOffset: -1n },
          currentLeader: { leaderId: -1, leaderEpoch: -1 },
          snapshotId: { endOffset: -1n, epoch: -1 },
          abortedTransactions:
            p.abortedTransactions === null
              ? null
              : p.abortedTransactions.map((a) => ({ producerId: BigInt(a.producerId), firstOffset: BigInt(a.firstOffset) })),
          preferredReadReplica: p.preferredReadReplica,
          records: concat(p.records.map((batch) => stored?.(name, p.partitionIndex, batch) ?? encodeRecordBatch(batchToWire(batch)))),
        })),
      };
    }),
  };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
