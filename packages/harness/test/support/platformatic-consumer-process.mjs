// A KIP-848 consumer in its own process: @platformatic/kafka 1.35.0 with groupProtocol "consumer" (the
// ConsumerGroupHeartbeat protocol), so a test can crash it for real (SIGKILL):
//   node platformatic-consumer-process.mjs <brokers,comma-separated> <groupId> <clientId> <topic> [<autocommit ms>|off]
// It prints "ready" once it consumes, "msg <key> <partition> <offset>" for every message its stream hands over,
// "assigned <partition,partition,...>" each time its assignment changes, and "committed" after each autocommit
// the coordinator accepted. SIGTERM closes the stream and the
// consumer, which leaves the group (a heartbeat with member epoch -1).
import { Consumer, stringDeserializers } from "@platformatic/kafka";

const [brokers, groupId, clientId, topic, autocommitArg = "500"] = process.argv.slice(2);
// "off": the client never commits (its commit retries can move a group's offset back: platformatic-commit-retry.test.ts).
const autocommit = autocommitArg === "off" ? false : Number(autocommitArg);
const consumer = new Consumer({
  groupId,
  clientId,
  bootstrapBrokers: brokers.split(","),
  groupProtocol: "consumer",
  deserializers: stringDeserializers,
  maxWaitTime: 200,
  retries: 20,
  retryDelay: 250,
});
let last = "";
const report = () => {
  const partitions = (consumer.assignments ?? [])
    .filter((a) => a.topic === topic)
    .flatMap((a) => a.partitions)
    .sort((a, b) => a - b)
    .join(",");
  if (partitions !== last) process.stdout.write(`assigned ${partitions}\n`);
  last = partitions;
};
const watcher = setInterval(report, 100);
const stream = await consumer.consume({ topics: [topic], autocommit, mode: "committed", fallbackMode: "earliest" });
stream.on("data", (message) => {
  process.stdout.write(`msg ${message.key} ${message.partition} ${message.offset}\n`);
});
stream.on("autocommit", (error) => {
  if (!error) process.stdout.write("committed\n");
});
stream.on("error", (error) => process.stderr.write(`${clientId}: stream error: ${error.message}\n`));
process.stdout.write("ready\n");
process.on("SIGTERM", async () => {
  clearInterval(watcher);
  try {
    await stream.close();
    await consumer.close();
  } finally {
    process.exit(0);
  }
});
