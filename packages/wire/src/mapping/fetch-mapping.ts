import type { FetchRequest, FetchResponse, RecordBatch } from "@kcsim/protocol";
import type { WireRequestOf, WireResponseOf } from "../apis/index.js";
import type { RequestHeader } from "../header.js";
import { encodeRecordBatch } from "../records/record-batch-codec.js";
import { WireError } from "../wire-error.js";
import { kcsimHeader, toNumber, type WireMappingContext } from "./mapping-context.js";
import { batchToWire } from "./record-batch-mapping.js";

export interface MappedFetch {
  readonly request: FetchRequest;
  /** Topics the context does not know: the endpoint answers UNKNOWN_TOPIC_OR_PARTITION for them. */
  readonly unknownTopics: readonly string[];
}

/**
 * Fetch v4-11 names topics; kcsim's request carries topic ids (v13 shape),
 * so the context resolves them. LastFetchedEpoch (v12+) is -1; fields a
 * version lacks take Kafka's defaults (session 0/-1, no rack, epoch -1).
 */
export function fetchToKcsim(
  header: RequestHeader,
  body: WireRequestOf<"Fetch">,
  context: Pick<WireMappingContext, "topicIdOf">,
): MappedFetch {
  const unknownTopics: string[] = [];
  const topicId = (name: string): string | undefined => {
    const id = context.topicIdOf(name);
    if (id === undefined && !unknownTopics.includes(name)) unknownTopics.push(name);
    return id;
  };
  const topics: FetchRequest["topics"] = [];
  for (const t of body.topics) {
    const id = topicId(t.topic);
    if (id === undefined) continue;
    topics.push({
      topicId: id,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        currentLeaderEpoch: p.currentLeaderEpoch,
        fetchOffset: toNumber(p.fetchOffset, "fetch offset"),
        lastFetchedEpoch: -1,
        logStartOffset: toNumber(p.logStartOffset, "log start offset"),
        partitionMaxBytes: p.partitionMaxBytes,
      })),
    });
  }
  const forgottenTopicsData: FetchRequest["forgottenTopicsData"] = [];
  for (const t of body.forgottenTopicsData) {
    const id = topicId(t.topic);
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

/** The bytes of a batch the server stored when a real client produced it, if any. */
export type StoredBatchBytes = (topic: string, partition: number, batch: RecordBatch) => Uint8Array | undefined;

/**
 * kcsim's answer on the wire: topic ids back to names, records as the
 * stored real bytes where there are some, else synthesized (record-batch-mapping.ts).
 * Records are never null (librdkafka 2.0.2 rejects a null record set).
 */
export function fetchToWire(
  response: FetchResponse,
  context: Pick<WireMappingContext, "topicNameOf">,
  stored?: StoredBatchBytes,
): WireResponseOf<"Fetch"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    errorCode: response.errorCode,
    sessionId: response.sessionId,
    responses: response.responses.map((t) => {
      const name = context.topicNameOf(t.topicId);
      if (name === undefined) throw new WireError("unencodable", `no topic name for id ${t.topicId}`);
      return {
        topic: name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: p.errorCode,
          highWatermark: BigInt(p.highWatermark),
          lastStableOffset: BigInt(p.lastStableOffset),
          logStartOffset: BigInt(p.logStartOffset),
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
