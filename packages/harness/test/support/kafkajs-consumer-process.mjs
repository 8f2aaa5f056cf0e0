// A KafkaJS 2.2.4 consumer in its own process, so a test can crash it for real (SIGKILL):
//   node kafkajs-consumer-process.mjs <brokers,comma-separated> <groupId> <clientId> <topic> <sessionTimeoutMs>
// It prints "ready" once it runs, "msg <key> <partition> <offset>" for every message its eachMessage handler gets,
// and "join <partition,partition,...>" each time it has joined the group (KafkaJS's GROUP_JOIN: its new assignment).
import kafkajs from "kafkajs";

const [brokers, groupId, clientId, topic, sessionTimeout] = process.argv.slice(2);
const { Kafka, logLevel } = kafkajs;
const kafka = new Kafka({ clientId, brokers: brokers.split(","), logLevel: logLevel.NOTHING, retry: { retries: 10 } });
const consumer = kafka.consumer({ groupId, sessionTimeout: Number(sessionTimeout), heartbeatInterval: 500, maxWaitTimeInMs: 200 });
consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
  process.stdout.write(`join ${(payload.memberAssignment[topic] ?? []).join(",")}\n`);
});
await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });
await consumer.run({
  eachMessage: async ({ partition, message }) => {
    process.stdout.write(`msg ${message.key.toString()} ${partition} ${message.offset}\n`);
  },
});
process.stdout.write("ready\n");
process.on("SIGTERM", async () => {
  await consumer.disconnect();
  process.exit(0);
});
