import { Admin, Consumer, Producer, stringDeserializers, stringSerializers } from "@platformatic/kafka";

/**
 * An @platformatic/kafka 1.35.0 session against one broker: an idempotent
 * producer (a plain batch with headers, then a gzip one; the topic is
 * auto-created through Metadata), a KIP-848 consumer (groupProtocol
 * "consumer": ConsumerGroupHeartbeat, OffsetFetch for the committed
 * offsets, ListOffsets for the fallback, Fetch) that reads the records back,
 * commits, lists its committed offsets and the log's end, and leaves; then
 * an admin listing the topics (Metadata for all topics). Returns the values
 * consumed. The consumer maps the topic ids it is assigned to names through
 * Metadata's topic ids (v10+): with Metadata v9 it never fetches, so the
 * wait for records is bounded (consumeTimeoutMs) and the session then fails.
 */
export async function platformaticSession(bootstrap: string, { topic = "plt", consumeTimeoutMs = 10_000 } = {}): Promise<string[]> {
  const base = { clientId: "kcsim-wire-test", bootstrapBrokers: [bootstrap], retries: 2, retryDelay: 50, timeout: 5_000 };

  const producer = new Producer({ ...base, idempotent: true, autocreateTopics: true, serializers: stringSerializers });
  try {
    await producer.send({
      messages: [
        { topic, partition: 0, key: "a", value: "one", headers: new Map([["h", "x"]]) },
        { topic, partition: 0, key: "b", value: "two" },
      ],
    });
    await producer.send({ messages: [{ topic, partition: 0, key: "c", value: "three".repeat(40) }], compression: "gzip" });
  } finally {
    await producer.close();
  }

  const consumer = new Consumer({
    ...base,
    groupId: "plt-group",
    groupProtocol: "consumer",
    deserializers: stringDeserializers,
    maxWaitTime: 100,
  });
  const seen: string[] = [];
  try {
    const stream = await consumer.consume({ topics: [topic], mode: "committed", fallbackMode: "earliest", autocommit: false });
    const deadline = setTimeout(() => void stream.close(), consumeTimeoutMs);
    try {
      for await (const message of stream) {
        seen.push(message.value);
        if (seen.length === 3) break;
      }
    } finally {
      clearTimeout(deadline);
    }
    if (seen.length < 3) throw new Error(`consumed ${seen.length} of 3 records in ${consumeTimeoutMs} ms`);
    await consumer.commit({ offsets: [{ topic, partition: 0, offset: 3n, leaderEpoch: 0 }] });
    await consumer.listCommittedOffsets({ topics: [{ topic, partitions: [0] }] });
    await consumer.listOffsets({ topics: [topic] });
  } finally {
    await consumer.close(true);
  }

  const admin = new Admin(base);
  try {
    await admin.listTopics();
  } finally {
    await admin.close();
  }
  return seen;
}
