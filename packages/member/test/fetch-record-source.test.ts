import { Fetcher } from "@kcsim/fetch";
import {
  type FetchRequest,
  type FetchResponse,
  IsolationLevel,
  type JsonValue,
  type Message,
  type MetadataRequest,
  type MetadataResponse,
  ms,
  type RecordBatch,
} from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { parseClassicMemberConfig } from "../src/classic/classic-member-config.js";
import { ConsumerMemberConfigError, parseConsumerMemberConfig } from "../src/consumer/consumer-member-config.js";
import { CorrelationIds } from "../src/consumer/correlation-ids.js";
import { recordSourceFor } from "../src/consumer/record-source-for.js";
import { ClassicDriver, classicConfig } from "./classic-test-support.js";
import { ConsumerDriver, type Sent, T1_ID, T2_ID, testConfig } from "./consumer-test-support.js";

const DATA_BROKER = "data-broker-0";
const FETCH_SOURCE = { kind: "fetch", brokers: [DATA_BROKER] };
const minimal = { consumer: { "group.id": "g", "group.protocol": "consumer" }, bootstrap: ["b0"] };

function errorOf(config: JsonValue): string {
  try {
    parseConsumerMemberConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConsumerMemberConfigError);
    return (error as Error).message;
  }
  throw new Error("config was accepted");
}

/** `count` records starting at `baseOffset`, as one batch. */
function batchOf(baseOffset: number, count: number): RecordBatch {
  return {
    baseOffset,
    lastOffsetDelta: count - 1,
    partitionLeaderEpoch: 0,
    sizeInBytes: 61 + count * 100,
    baseTimestamp: 0,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    isTransactional: false,
    isControl: false,
    records: Array.from({ length: count }, (_, i) => ({
      offsetDelta: i,
      timestampDelta: 0,
      key: null,
      value: `T1-0@${baseOffset + i}`,
      sizeInBytes: 100,
    })),
  };
}

/** The data broker's answer: it leads every partition of T1 (4) and T2 (2). */
function metadataAnswer(request: MetadataRequest): MetadataResponse {
  const topic = (name: string, topicId: string, partitions: number) => ({
    errorCode: 0,
    name,
    topicId,
    isInternal: false,
    partitions: Array.from({ length: partitions }, (_, partitionIndex) => ({
      errorCode: 0,
      partitionIndex,
      leaderId: 0,
      leaderEpoch: 0,
      replicaNodes: [0],
      isrNodes: [0],
    })),
  });
  return {
    type: "MetadataResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    brokers: [{ nodeId: 0, host: DATA_BROKER, port: 9092, rack: null }],
    controllerId: 0,
    topics: [topic("T1", T1_ID, 4), topic("T2", T2_ID, 2)],
  };
}

/** A session-less answer holding `batch` for T1-0 (high watermark just past it). */
function fetchAnswer(request: FetchRequest, batch: RecordBatch): FetchResponse {
  const end = batch.baseOffset + batch.lastOffsetDelta + 1;
  return {
    type: "FetchResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [
      {
        topicId: T1_ID,
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 0,
            highWatermark: end,
            lastStableOffset: end,
            logStartOffset: 0,
            abortedTransactions: [],
            preferredReadReplica: -1,
            records: [batch],
          },
        ],
      },
    ],
  };
}

/** A test config reading from the data broker instead of the synthetic source. */
function withFetchSource(config: JsonValue): JsonValue {
  return { ...(config as Record<string, JsonValue>), source: FETCH_SOURCE };
}

function sentTo(driver: ConsumerDriver, type: Message["type"]): Sent[] {
  return driver.ctx.sent.filter((s) => s.to === DATA_BROKER && s.message.type === type);
}

function correlationIds(driver: ConsumerDriver): number[] {
  return driver.ctx.sent.map((s) => ("correlationId" in s.message ? s.message.correlationId : -1));
}

describe('source kind "fetch": the client Fetcher reads from the data brokers', () => {
  it("parses {kind: fetch, brokers}; refuses a bad one with one line naming the field", () => {
    expect(parseConsumerMemberConfig({ ...minimal, source: FETCH_SOURCE }).source).toEqual(FETCH_SOURCE);
    expect(
      parseClassicMemberConfig({ ...minimal, consumer: { "group.id": "g", "group.protocol": "classic" }, source: FETCH_SOURCE }).source,
    ).toEqual(FETCH_SOURCE);
    for (const [source, expected] of [
      [{ kind: "fetch" }, "'source.brokers' must be a list of strings"],
      [{ kind: "fetch", brokers: [] }, "'source.brokers' must not be empty"],
      [{ kind: "fetch", brokers: [DATA_BROKER], recordBytes: 10 }, "'source.recordBytes' is not a known field"],
      [{ kind: "synthetic", brokers: [DATA_BROKER] }, "'source.brokers' is not a known field"],
      [{ kind: "kafka" }, '\'source.kind\' must be "synthetic" or "fetch", got "kafka"'],
      ["fetch", "'source' must be an object"],
    ] as [JsonValue, string][]) {
      const message = errorOf({ ...minimal, source });
      expect(message).toContain(expected);
      expect(message).not.toContain("\n");
    }
  });

  it("builds a Fetcher with the consumer's settings, numbering its requests from the member's own correlation ids", () => {
    const config = parseConsumerMemberConfig({ ...minimal, source: FETCH_SOURCE });
    const ids = new CorrelationIds();
    expect(recordSourceFor("member-1", config, ids)).toBeInstanceOf(Fetcher);
    expect(ids.next()).toBe(1);
  });

  it("KIP-848: fetches from the committed offset with the configured isolation.level; member and fetcher correlation ids never collide", () => {
    const driver = new ConsumerDriver(
      withFetchSource(testConfig({ consumer: { "isolation.level": "read_committed", "client.id": "app-1" }, app: { commit: "none" } })),
    );
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1, assignment: { [T1_ID]: [0] } });
    driver.run(0);
    // The Fetcher asks the data broker for metadata, as client app-1.
    const metadata = sentTo(driver, "MetadataRequest")[0];
    expect(metadata?.message).toMatchObject({ clientId: "app-1" });
    driver.deliver(DATA_BROKER, metadataAnswer(metadata?.message as MetadataRequest));
    driver.answerOffsetFetch({ "T1-0": 5 });
    driver.run(0);
    const fetch = sentTo(driver, "FetchRequest")[0]?.message as FetchRequest;
    expect(fetch).toMatchObject({ clientId: "app-1", isolationLevel: IsolationLevel.READ_COMMITTED });
    expect(fetch.topics).toEqual([{ topicId: T1_ID, partitions: [expect.objectContaining({ partition: 0, fetchOffset: 5 })] }]);
    driver.deliver(DATA_BROKER, fetchAnswer(fetch, batchOf(5, 3)));
    driver.run(10);
    expect(driver.recordRanges()[0]).toMatchObject({ topic: "T1", partition: 0, firstOffset: 5, lastOffset: 7, count: 3 });

    // One counter for every request of the process: unique, and in the order they were sent.
    const ids = correlationIds(driver);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(driver.ctx.sent.some((s) => s.to === DATA_BROKER) && driver.ctx.sent.some((s) => s.to !== DATA_BROKER)).toBe(true);
  });

  it("KIP-848: a reset by the data broker fails the Fetcher's requests, not the member's", () => {
    const driver = new ConsumerDriver(withFetchSource(testConfig({ app: { commit: "none" } })));
    driver.answerFindCoordinator();
    driver.run(0);
    driver.answerHeartbeat({ epoch: 1, assignment: { [T1_ID]: [0] } });
    driver.run(0);
    driver.deliver(DATA_BROKER, metadataAnswer(sentTo(driver, "MetadataRequest")[0]?.message as MetadataRequest));
    driver.answerOffsetFetch({ "T1-0": 5 });
    driver.run(0);
    expect(sentTo(driver, "FetchRequest")).toHaveLength(1);
    driver.run(1000); // the acknowledging heartbeat is still out to the coordinator
    const resetAt = driver.now;
    driver.deliver(DATA_BROKER, { type: "SimDisconnect", reason: "crashed", connection: "*" });
    expect(driver.snapshot.coordinator).toBe("coordinator-0");
    // The Fetcher waits out reconnect.backoff.ms (50 ms) and refreshes its metadata.
    driver.runUntil(() => sentTo(driver, "MetadataRequest").length === 2, 1000);
    expect(driver.now - resetAt).toBe(ms(50));
    driver.answerHeartbeat({ epoch: 1 });
    expect(driver.state).toBe("STABLE");
  });

  it("classic: the same Fetcher, numbered from the member's correlation ids", () => {
    const driver = new ClassicDriver(withFetchSource(classicConfig()));
    driver.joinStableWith({ T1: [0] }, 1);
    const metadata = sentTo(driver, "MetadataRequest")[0];
    expect(metadata?.message).toMatchObject({ clientId: "member-1" });
    const ids = correlationIds(driver);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });
});
