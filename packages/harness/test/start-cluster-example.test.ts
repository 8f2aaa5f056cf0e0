// The README's startCluster example, as it runs here (the README imports from "@kcsim/harness").
import { Kafka, logLevel } from "kafkajs";
import { expect, it } from "vitest";
import { startCluster } from "../src/index.js";

it("consumes every order through flaky fetches, and kcsim's checkers agree", async () => {
  const cluster = await startCluster({
    scenario: {
      name: "orders-app",
      durationMs: 600_000,
      cluster: { brokers: 3, coordinators: 3, topics: [{ name: "orders", partitions: 3, replicationFactor: 3 }] },
      // For the first 10 s, 5% of the app's fetches break its connection.
      faults: [{ name: "flaky-fetches", from: ["client:orders-app"], types: ["FetchRequest"], endMs: 10_000, drop: { probability: 0.05 } }],
    },
  });
  const kafka = new Kafka({ clientId: "orders-app", brokers: [...cluster.brokers], logLevel: logLevel.NOTHING });

  const producer = kafka.producer();
  await producer.connect();
  const sent = Array.from({ length: 50 }, (_, i) => `order-${i}`);
  for (const key of sent) await producer.send({ topic: "orders", messages: [{ key, value: "{}" }] });

  const consumer = kafka.consumer({ groupId: "billing" });
  await consumer.connect();
  await consumer.subscribe({ topics: ["orders"], fromBeginning: true });
  const seen = new Set<string>();
  await new Promise<void>((done) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.add(String(message.key));
        if (seen.size === sent.length) done();
      },
    });
  });
  await consumer.disconnect();
  await producer.disconnect();

  const verdicts = await cluster.stop();
  expect(verdicts.failures).toEqual([]); // e.g. ["single-owner: orders-1 owned by client:a and client:b at once"]
  expect(verdicts.clients).toEqual(["client:orders-app"]);
}, 120_000);
