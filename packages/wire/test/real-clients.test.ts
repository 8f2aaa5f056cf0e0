import { afterEach, describe, expect, test } from "vitest";
import { kafkajsSession } from "./support/kafkajs-session.js";
import { kcatSession } from "./support/kcat.js";
import { platformaticSession } from "./support/platformatic-session.js";
import { ToyBroker } from "./support/toy-broker.js";

// Real clients against WireServerConnection on a real socket (the toy broker
// in support/ answers from memory): they accept every response this package
// encodes, at the versions they negotiate with the full table.
let broker: ToyBroker | undefined;
afterEach(async () => {
  await broker?.stop();
  broker = undefined;
});

describe("real clients", () => {
  test("kcat (librdkafka 2.0.2): metadata, idempotent and gzip produce, a group, consume", async () => {
    broker = await new ToyBroker().start();
    const [metadata, produce, gzip, group, consume] = await kcatSession(broker.bootstrap);
    expect(metadata!.stdout).toMatch(/topic "t" with 1 partitions/);
    expect([produce!.code, gzip!.code]).toEqual([0, 0]);
    expect(group!.stdout.split("\n").filter(Boolean)).toEqual(["k1=v1@0", "k2=v2@1", `k3=${"v3".repeat(100)}@2`]);
    expect(group!.stderr).toMatch(/assigned: t \[0\]/);
    expect(consume!.stdout.split("\n").filter(Boolean)).toEqual(["k1=v1@0", "k2=v2@1", `k3=${"v3".repeat(100)}@2`]);
    expect(broker.closeReasons).toEqual([]);
    const used = new Set(broker.frames.map((f) => `${f.apiKey}:${f.apiVersion}`));
    // ApiVersions v3, Metadata v4, InitProducerId v4, Produce v7, JoinGroup v5, SyncGroup v3, OffsetCommit v7, OffsetFetch v7, Fetch v11
    for (const key of ["18:3", "3:4", "22:4", "0:7", "11:5", "14:3", "8:7", "9:7", "1:11"]) expect(used).toContain(key);
  }, 60_000);

  test("KafkaJS 2.2.4: admin, idempotent producer with headers, a consumer group", async () => {
    broker = await new ToyBroker().start();
    expect(await kafkajsSession(broker.bootstrap)).toEqual(["one", "two"]);
    expect(broker.closeReasons).toEqual([]);
    const used = new Set(broker.frames.map((f) => `${f.apiKey}:${f.apiVersion}`));
    // ApiVersions v2, Metadata v6, CreateTopics v3, Produce v7, Fetch v11, OffsetCommit v5, LeaveGroup v3
    for (const key of ["18:2", "3:6", "19:3", "0:7", "1:11", "8:5", "13:3"]) expect(used).toContain(key);
  }, 60_000);

  test("@platformatic/kafka 1.35.0: idempotent and gzip produce, a KIP-848 consumer group, commits and offsets", async () => {
    broker = await new ToyBroker().start();
    expect(await platformaticSession(broker.bootstrap)).toEqual(["one", "two", "three".repeat(40)]);
    expect(broker.closeReasons).toEqual([]);
    const used = new Set(broker.frames.map((f) => `${f.apiKey}:${f.apiVersion}`));
    // ApiVersions v3, Metadata v12, InitProducerId v4, Produce v7, FindCoordinator v4, ConsumerGroupHeartbeat v1,
    // OffsetFetch v9, ListOffsets v6, Fetch v13 (topics by id), OffsetCommit v9: the highest each side has
    for (const key of ["18:3", "3:12", "22:4", "0:7", "10:4", "68:1", "9:9", "2:6", "1:13", "8:9"]) expect(used).toContain(key);
  }, 60_000);
});
