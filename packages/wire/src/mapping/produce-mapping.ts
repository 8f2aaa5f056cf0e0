import type { ProduceRequest, ProduceResponse } from "@kcsim/protocol";
import { ErrorCode } from "@kcsim/protocol";
import type { WireRequestOf, WireResponseOf } from "../apis/index.js";
import type { RequestHeader } from "../header.js";
import { checkProduceRecords } from "../records/produce-records.js";
import { WireError } from "../wire-error.js";
import { kcsimHeader } from "./mapping-context.js";
import { batchToKcsim } from "./record-batch-mapping.js";

/** A partition the endpoint answers itself: its records failed Kafka's checks (error code per records/produce-records.ts). */
export interface RejectedPartition {
  readonly topic: string;
  readonly partition: number;
  readonly errorCode: number;
  readonly message: string;
}

export interface MappedProduce {
  /** The partitions that passed, as kcsim's request (absent when none did). */
  readonly request: ProduceRequest | undefined;
  /** Each accepted partition's batch bytes, "topic-partition" -> bytes, to store and serve back unchanged. */
  readonly batchBytes: ReadonlyMap<string, Uint8Array>;
  readonly rejected: readonly RejectedPartition[];
}

export function produceToKcsim(header: RequestHeader, body: WireRequestOf<"Produce">, maxUncompressedBytes?: number): MappedProduce {
  const batchBytes = new Map<string, Uint8Array>();
  const rejected: RejectedPartition[] = [];
  const topicData: ProduceRequest["topicData"] = [];
  for (const topic of body.topicData) {
    const partitionData: ProduceRequest["topicData"][number]["partitionData"] = [];
    for (const p of topic.partitionData) {
      const check = checkProduceRecords(header.apiVersion, p.records, maxUncompressedBytes);
      if (!check.ok) {
        rejected.push({ topic: topic.name, partition: p.index, errorCode: check.errorCode, message: check.message });
        continue;
      }
      let records: ProduceRequest["topicData"][number]["partitionData"][number]["records"];
      try {
        records = batchToKcsim(check.decoded.batch, check.decoded.bytes.length);
      } catch (error) {
        if (!(error instanceof WireError)) throw error;
        rejected.push({ topic: topic.name, partition: p.index, errorCode: ErrorCode.INVALID_RECORD, message: error.message });
        continue;
      }
      batchBytes.set(`${topic.name}-${p.index}`, check.decoded.bytes);
      partitionData.push({ index: p.index, records });
    }
    if (partitionData.length > 0) topicData.push({ name: topic.name, partitionData });
  }
  const request: ProduceRequest | undefined =
    topicData.length === 0
      ? undefined
      : {
          type: "ProduceRequest",
          ...kcsimHeader(header),
          transactionalId: body.transactionalId,
          acks: body.acks,
          timeoutMs: body.timeoutMs,
          topicData,
        };
  return { request, batchBytes, rejected };
}

/** kcsim's answer plus the partitions rejected before it; ErrorMessage (v8+) is not carried at these versions. */
export function produceToWire(response: ProduceResponse | undefined, rejected: readonly RejectedPartition[]): WireResponseOf<"Produce"> {
  const topics = new Map<string, WireResponseOf<"Produce">["responses"][number]["partitionResponses"]>();
  const topic = (name: string) => {
    let list = topics.get(name);
    if (list === undefined) {
      list = [];
      topics.set(name, list);
    }
    return list;
  };
  for (const t of response?.responses ?? []) {
    for (const p of t.partitionResponses) {
      topic(t.name).push({
        index: p.index,
        errorCode: p.errorCode,
        baseOffset: BigInt(p.baseOffset),
        logAppendTimeMs: BigInt(p.logAppendTimeMs),
        logStartOffset: BigInt(p.logStartOffset),
      });
    }
  }
  for (const r of rejected)
    topic(r.topic).push({ index: r.partition, errorCode: r.errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n });
  return {
    throttleTimeMs: response?.throttleTimeMs ?? 0,
    responses: [...topics].map(([name, partitionResponses]) => ({ name, partitionResponses })),
  };
}
