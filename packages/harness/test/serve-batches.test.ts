import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompressionTypes, Kafka, logLevel } from "kafkajs";
import { expect, it } from "vitest";
import { startCluster } from "../src/index.js";

/** A header's value as hex, "" when absent: KafkaJS hands a consumer its headers' values as Buffers (a string or a list shows as such). */
function bytesHex(value: Buffer | string | (Buffer | string)[] | undefined): string {
  if (value === undefined) return "";
  return Buffer.isBuffer(value) ? value.toString("hex") : `not bytes: ${JSON.stringify(value)}`;
}

it("serves a real producer's batches back as written: headers, gzip, timestamps (default cluster, topic auto-created)", async () => {
  const out = mkdtempSync(join(tmpdir(), "kcsim-batches-"));
  const cluster = await startCluster({ out });
  try {
    const kafka = new Kafka({ clientId: "batches", brokers: [...cluster.brokers], logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    await producer.send({
      topic: "audit",
      compression: CompressionTypes.GZIP,
      messages: [
        { key: "a", value: "first", headers: { trace: "t-1", tenant: Buffer.from([0, 1, 2]) }, timestamp: "1700000000000" },
        { key: "b", value: "second", headers: { trace: "t-2" }, timestamp: "1700000000001" },
      ],
    });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: "audit-readers" });
    await consumer.connect();
    await consumer.subscribe({ topics: ["audit"], fromBeginning: true });
    const got: { key: string; value: string; trace: string; tenant: string; timestamp: string }[] = [];
    await new Promise<void>((done) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          got.push({
            key: String(message.key),
            value: String(message.value),
            trace: String(message.headers?.trace),
            tenant: bytesHex(message.headers?.tenant),
            timestamp: message.timestamp,
          });
          if (got.length === 2) done();
        },
      });
    });
    await consumer.disconnect();
    expect(got).toEqual([
      { key: "a", value: "first", trace: "t-1", tenant: "000102", timestamp: "1700000000000" },
      { key: "b", value: "second", trace: "t-2", tenant: "", timestamp: "1700000000001" },
    ]);
  } finally {
    const verdicts = await cluster.stop();
    expect(verdicts.failures).toEqual([]);
    // The auto-created topic reached the group coordinators too: the consumer's commits of it were accepted.
    const commits = readFileSync(join(out, "history.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.includes('"type":"member.commit"') && line.includes('"audit"'));
    rmSync(out, { recursive: true, force: true });
    expect(commits.length).toBeGreaterThan(0);
    expect(commits.every((line) => line.includes('"result":"NONE"'))).toBe(true);
  }
}, 120_000);
