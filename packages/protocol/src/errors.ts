/**
 * Kafka error codes with their numeric values and names
 * (clients/src/main/java/org/apache/kafka/common/protocol/Errors.java).
 * Only the codes the simulation can produce or react to are listed.
 */
export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  MESSAGE_TOO_LARGE: 10,
  OFFSET_METADATA_TOO_LARGE: 12,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_TOPIC_EXCEPTION: 17,
  NOT_ENOUGH_REPLICAS: 19,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  INVALID_COMMIT_OFFSET_SIZE: 28,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  INVALID_TIMESTAMP: 32,
  UNSUPPORTED_VERSION: 35,
  INVALID_REQUEST: 42,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_TXN_STATE: 48,
  INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50,
  CONCURRENT_TRANSACTIONS: 51,
  TRANSACTION_COORDINATOR_FENCED: 52,
  KAFKA_STORAGE_ERROR: 56,
  UNKNOWN_PRODUCER_ID: 59,
  FETCH_SESSION_ID_NOT_FOUND: 70,
  INVALID_FETCH_SESSION_EPOCH: 71,
  MEMBER_ID_REQUIRED: 79,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  UNSTABLE_OFFSET_COMMIT: 88,
  PRODUCER_FENCED: 90,
  GROUP_ID_NOT_FOUND: 69,
  FETCH_SESSION_TOPIC_ID_ERROR: 106,
  UNKNOWN_TOPIC_ID: 100,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  UNSUPPORTED_ASSIGNOR: 112,
  STALE_MEMBER_EPOCH: 113,
  INVALID_REGULAR_EXPRESSION: 128,
} as const;

export type ErrorName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorName];

const namesByCode = new Map<number, ErrorName>((Object.entries(ErrorCode) as [ErrorName, number][]).map(([name, code]) => [code, name]));

/** Kafka's name for an error code, or `UNKNOWN(<code>)` for a code this table does not list. */
export function errorName(code: number): string {
  return namesByCode.get(code) ?? `UNKNOWN(${code})`;
}

/** Errors a client retries after rediscovering the coordinator (spec 1.7). */
export function isCoordinatorError(code: number): boolean {
  return code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE;
}
