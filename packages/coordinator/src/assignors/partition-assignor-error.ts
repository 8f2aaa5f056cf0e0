/**
 * Kafka's `PartitionAssignorException`: the assignor cannot compute an
 * assignment (a member subscribes to a topic the metadata does not have).
 * The coordinator answers the heartbeat with UNKNOWN_SERVER_ERROR.
 */
export class PartitionAssignorError extends Error {
  override readonly name = "PartitionAssignorException";
}

/** The message Kafka uses for a subscribed topic missing from the metadata. */
export function missingTopicError(topicId: string): PartitionAssignorError {
  return new PartitionAssignorError(`Members are subscribed to topic ${topicId} which doesn't exist in the topic metadata.`);
}
