import { Kafka, logLevel } from "kafkajs";

/**
 * A KafkaJS 2.2.4 session against one broker: admin (create a topic, read
 * metadata), an idempotent producer, and a consumer in a group that reads
 * the records back and commits. Returns the values consumed.
 */
export async function kafkajsSession(bootstrap: string, topic = "kjs"): Promise<string[]> {
  const kafka = new Kafka({ clientId: "kcsim-wire-test", brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
  await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.disconnect();

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({
    topic,
    messages: [
      { key: "a", value: "one", headers: { h: "x" } },
      { key: "b", value: "two" },
    ],
  });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: "kjs-group", heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  const seen: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        autoCommitInterval: 10,
        eachMessage: async ({ message }) => {
          seen.push(String(message.value));
          if (seen.length === 2) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.commitOffsets([{ topic, partition: 0, offset: "2" }]);
  await consumer.disconnect();
  return seen;
}
