import type { FetchResponse, FetchResponsePartition } from "@kcsim/protocol";
import type { PartitionReadResult } from "./partition-read-result.js";

/**
 * A FetchResponse carrying the given partitions in order. Like Kafka's
 * `FetchResponse.toMessage`, partitions are grouped under a topic only while
 * they come one after another, so the order is kept exactly.
 */
export function fetchResponseFor(
  correlationId: number,
  errorCode: number,
  sessionId: number,
  reads: readonly PartitionReadResult[],
  throttleTimeMs = 0,
): FetchResponse {
  const responses: { topicId: string; partitions: FetchResponsePartition[] }[] = [];
  let current: { topicId: string; partitions: FetchResponsePartition[] } | undefined;
  // Indexed: an array's iterator is an allocation per response.
  for (let i = 0; i < reads.length; i++) {
    const read = reads[i] as PartitionReadResult;
    if (current === undefined || current.topicId !== read.topicId) {
      current = { topicId: read.topicId, partitions: [] };
      responses.push(current);
    }
    current.partitions.push(read.data);
  }
  return { type: "FetchResponse", correlationId, throttleTimeMs, errorCode, sessionId, responses };
}
