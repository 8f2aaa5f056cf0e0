import type { FetchRequest, FetchResponse, FetchResponsePartition } from "@kcsim/protocol";
import { recordsSizeInBytes } from "./partition-read-result.js";

/**
 * Estimated Kafka wire sizes of Fetch messages in the v13 layout (flexible
 * versions: compact arrays and strings with unsigned-varint lengths, an
 * empty tagged-field buffer of one byte per struct, topics named by 16-byte
 * ids). Sizes include the 4-byte frame length and the header, so they are
 * the bytes a connection would carry. Record bytes are the batches'
 * `sizeInBytes`.
 */

const FRAME_SIZE_PREFIX = 4;
const INT8 = 1;
const INT16 = 2;
const INT32 = 4;
const INT64 = 8;
const UUID = 16;
/** An empty tagged-field buffer: varint 0. */
const NO_TAGGED_FIELDS = 1;

/** Bytes of an unsigned varint. */
export function unsignedVarintSize(value: number): number {
  let bytes = 1;
  let v = value >>> 0;
  while (v >= 0x80) {
    v >>>= 7;
    bytes++;
  }
  return bytes;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** A compact array/string/bytes length prefix: varint(n + 1). */
function compactLength(n: number): number {
  return unsignedVarintSize(n + 1);
}

/** Request header v2: api key, api version, correlation id, client id (INT16-length string), tags. */
function requestHeaderBytes(clientId: string): number {
  return INT16 + INT16 + INT32 + INT16 + utf8Length(clientId) + NO_TAGGED_FIELDS;
}

/** Response header v1: correlation id, tags. */
const RESPONSE_HEADER_BYTES = INT32 + NO_TAGGED_FIELDS;

/** One FetchPartition: partition, current leader epoch, fetch offset, last fetched epoch, log start offset, max bytes, tags. */
export const FETCH_REQUEST_PARTITION_BYTES = INT32 + INT32 + INT64 + INT32 + INT64 + INT32 + NO_TAGGED_FIELDS;

/** Bytes of a Fetch request (v13 layout) including frame length and header. */
export function fetchRequestBytes(request: FetchRequest): number {
  let bytes = FRAME_SIZE_PREFIX + requestHeaderBytes(request.clientId);
  // replica id, max wait, min bytes, max bytes, isolation level, session id, session epoch
  bytes += INT32 + INT32 + INT32 + INT32 + INT8 + INT32 + INT32;
  // Indexed loops: a sent message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
  const topics = request.topics;
  bytes += compactLength(topics.length);
  for (let t = 0; t < topics.length; t++) {
    const count = (topics[t] as FetchRequest["topics"][number]).partitions.length;
    bytes += UUID + compactLength(count) + count * FETCH_REQUEST_PARTITION_BYTES + NO_TAGGED_FIELDS;
  }
  const forgotten = request.forgottenTopicsData;
  bytes += compactLength(forgotten.length);
  for (let t = 0; t < forgotten.length; t++) {
    const count = (forgotten[t] as FetchRequest["forgottenTopicsData"][number]).partitions.length;
    bytes += UUID + compactLength(count) + count * INT32 + NO_TAGGED_FIELDS;
  }
  const rackBytes = utf8Length(request.rackId);
  bytes += compactLength(rackBytes) + rackBytes;
  return bytes + NO_TAGGED_FIELDS;
}

/** Bytes of one response partition, records included. */
export function fetchResponsePartitionBytes(partition: FetchResponsePartition): number {
  // partition index, error code, high watermark, last stable offset, log start offset
  let bytes = INT32 + INT16 + INT64 + INT64 + INT64;
  const aborted = partition.abortedTransactions;
  // Nullable compact array: varint 0 for null; each entry is producer id, first offset, tags.
  bytes += aborted === null ? 1 : compactLength(aborted.length) + aborted.length * (INT64 + INT64 + NO_TAGGED_FIELDS);
  bytes += INT32; // preferred read replica
  const records = recordsSizeInBytes(partition);
  bytes += compactLength(records) + records;
  return bytes + NO_TAGGED_FIELDS;
}

/** Bytes of a Fetch response (v13 layout) including frame length and header. */
export function fetchResponseBytes(response: FetchResponse): number {
  let bytes = FRAME_SIZE_PREFIX + RESPONSE_HEADER_BYTES;
  bytes += INT32 + INT16 + INT32; // throttle time, error code, session id
  bytes += compactLength(response.responses.length);
  // Indexed loops: a delivered message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
  const topics = response.responses;
  for (let t = 0; t < topics.length; t++) {
    const partitions = (topics[t] as FetchResponse["responses"][number]).partitions;
    bytes += UUID + compactLength(partitions.length) + NO_TAGGED_FIELDS;
    for (let p = 0; p < partitions.length; p++) bytes += fetchResponsePartitionBytes(partitions[p] as FetchResponsePartition);
  }
  return bytes + NO_TAGGED_FIELDS;
}
