import { ErrorCode, type JsonValue, tpKey } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerMemberConfigError, parseConsumerMemberConfig } from "../src/consumer/consumer-member-config.js";
import type { ProcessedBatchObservation } from "../src/observations.js";
import { parseResultValue } from "../src/processing/result-value.js";
import { ConsumerDriver } from "./consumer-test-support.js";
import {
  classicEosDriver,
  eosConfig,
  FakeKafka,
  type FakeKafkaScript,
  OUT,
  syntheticRecords,
  TXN_COORDINATOR,
} from "./eos-test-support.js";

function kip848(config: JsonValue = eosConfig(), script: FakeKafkaScript = {}): { driver: ConsumerDriver; kafka: FakeKafka } {
  const driver = new ConsumerDriver(config, { recordSource: syntheticRecords() });
  return { driver, kafka: new FakeKafka(driver, script) };
}

const batches = (driver: ConsumerDriver) => driver.observations("member.batch") as unknown as ProcessedBatchObservation[];

/** The input record each committed result names, as `T1-p@o`. */
const resultInputs = (values: readonly string[]) =>
  values.map((value) => {
    const origin = parseResultValue(value);
    if (origin === null) throw new Error(`not a result: ${value}`);
    return `${tpKey(origin.topic, origin.partition)}@${origin.offset}`;
  });

/** Every record of T1 [0, 1] below the committed offsets, as `T1-p@o`. */
const committedInputs = (kafka: FakeKafka) => {
  const inputs: string[] = [];
  for (const [tp, offset] of kafka.committed) for (let o = 0; o < offset; o++) inputs.push(`${tp}@${o}`);
  return inputs.sort();
};

describe("consume-process-produce, transactional (KIP-848 member)", () => {
  it("runs each batch as one transaction: results to the output, then the next offsets with the group metadata, then EndTxn(commit)", () => {
    const { driver, kafka } = kip848();
    kafka.runUntil(() => batches(driver).filter((b) => b.outcome === "committed").length >= 3);
    const types = driver.ctx.sent
      .map((s) => s.message.type)
      .filter((t) =>
        ["AddPartitionsToTxnRequest", "ProduceRequest", "AddOffsetsToTxnRequest", "TxnOffsetCommitRequest", "EndTxnRequest"].includes(t),
      );
    // The first transaction: partitions added, results produced, offsets added and committed, then EndTxn.
    expect(types.slice(0, types.indexOf("EndTxnRequest") + 1).filter((t, i, all) => all.indexOf(t) === i)).toEqual([
      "AddPartitionsToTxnRequest",
      "ProduceRequest",
      "AddOffsetsToTxnRequest",
      "TxnOffsetCommitRequest",
      "EndTxnRequest",
    ]);
    const first = kafka.txnOffsetCommits[0];
    expect(first?.transactionalId).toBe("g1-member-1");
    expect(first?.memberId).toBe(driver.snapshot.memberId);
    expect(first?.generationId).toBe(1);
    expect(kafka.endTxns.every((e) => e.committed)).toBe(true);
    // Results name their input records; each committed input has exactly one, sent with the input's key.
    expect(kafka.produced.every((r) => r.topic === OUT && r.transactional)).toBe(true);
    expect(kafka.produced.every((r) => resultInputs([r.value ?? ""])[0] === r.key)).toBe(true);
    kafka.run(500);
    expect(resultInputs(kafka.committedValues()).sort()).toEqual(committedInputs(kafka));
    // Offsets go with the transactions only: no OffsetCommit, no auto-commit.
    expect(driver.sentOf("OffsetCommitRequest")).toEqual([]);
    expect(driver.snapshot.processing).toMatchObject({ output: { transactionalId: "g1-member-1", fencedBatches: 0 } });
  });

  it("a refused TxnOffsetCommit (ILLEGAL_GENERATION) aborts the batch; the consumer rewinds and the records go out again in the next transaction", () => {
    const { driver, kafka } = kip848(eosConfig(), {
      txnOffsetCommitError: (_, n) => (n === 2 ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.NONE),
    });
    kafka.runUntil(() => batches(driver).filter((b) => b.outcome === "committed").length >= 3);
    const aborted = batches(driver).find((b) => b.outcome === "aborted");
    expect(aborted?.reason).toBe("CommitFailedException: ILLEGAL_GENERATION");
    expect(kafka.endTxns.map((e) => e.committed).slice(0, 3)).toEqual([true, false, true]);
    // Rewound to the batch's first offsets: the same records are handed out again, then committed once.
    const rewound = aborted?.rewoundTo.T1 ?? {};
    expect(Object.keys(rewound).length).toBeGreaterThan(0);
    for (const [partition, offset] of Object.entries(rewound)) {
      expect(aborted?.offsets.T1?.[partition]?.[0]).toBe(offset);
      const again = driver.recordRanges().filter((r) => r.partition === Number(partition) && r.firstOffset === offset);
      expect(again.length).toBe(2);
    }
    kafka.run(500);
    const inputs = resultInputs(kafka.committedValues());
    expect(new Set(inputs).size).toBe(inputs.length);
    expect(inputs.sort()).toEqual(committedInputs(kafka));
  });

  it("retries an EndTxn whose answer is lost; the transaction commits once", () => {
    const { driver, kafka } = kip848(eosConfig(), { endTxn: (_, n) => (n === 1 ? "drop" : ErrorCode.NONE) });
    kafka.runUntil(() => batches(driver).some((b) => b.outcome === "committed"));
    expect(kafka.endTxns.length).toBe(2);
    expect(kafka.endTxns[0]).toMatchObject({ committed: true, producerEpoch: 0 });
    expect(kafka.endTxns[1]).toMatchObject({ committed: true, producerEpoch: 0 });
    expect(batches(driver)[0]?.outcome).toBe("committed");
  });

  it("a fenced producer (PRODUCER_FENCED) is replaced: initialised again, the batch rewound and processed in a new transaction", () => {
    const { driver, kafka } = kip848(eosConfig(), {
      endTxn: (_, n) => (n === 2 ? ErrorCode.PRODUCER_FENCED : ErrorCode.NONE),
    });
    kafka.runUntil(() => batches(driver).filter((b) => b.outcome === "committed").length >= 3);
    const fenced = batches(driver).find((b) => b.outcome === "fenced");
    expect(fenced?.reason).toBe("PRODUCER_FENCED");
    expect(driver.sentOf("InitProducerIdRequest").map((s) => s.message.transactionalId)).toEqual(["g1-member-1", "g1-member-1"]);
    expect(kafka.endTxns.at(-1)?.producerEpoch).toBe(1);
    expect(driver.snapshot.processing).toMatchObject({ output: { producers: 2, fencedBatches: 1 } });
    kafka.run(500);
    const inputs = resultInputs(kafka.committedValues());
    expect(new Set(inputs).size).toBe(inputs.length);
    expect(inputs.sort()).toEqual(committedInputs(kafka));
  });

  it("a rebalance revoking a partition of the batch aborts it (REVOKED) before its offsets are sent", () => {
    let revoke = false;
    const { driver, kafka } = kip848(eosConfig({ app: { processingMsPerRecord: 200 } }), {
      heartbeat: (request) => {
        if (request.memberEpoch === 0) return { epoch: 1, assignment: { [T1_ID_FOR_TEST]: [0, 1] } };
        if (revoke) return { epoch: 2, assignment: { [T1_ID_FOR_TEST]: [0] } };
        return { epoch: request.memberEpoch };
      },
    });
    kafka.runUntil(() => driver.recordRanges().some((r) => r.partition === 1));
    revoke = true;
    kafka.runUntil(() => batches(driver).some((b) => b.reason === "REVOKED"));
    // The aborted batch's offsets never went out in a TxnOffsetCommit, and its transaction aborted.
    const aborted = batches(driver).find((b) => b.reason === "REVOKED");
    const ends = Object.entries(aborted?.offsets.T1 ?? {}).map(([partition, [, last]]) => `${partition}@${last + 1}`);
    expect(ends.length).toBeGreaterThan(0);
    const sentOffsets = kafka.txnOffsetCommits.flatMap((r) =>
      r.topics.flatMap((t) => t.partitions.map((p) => `${p.partitionIndex}@${p.committedOffset}`)),
    );
    expect(sentOffsets.filter((o) => ends.includes(o))).toEqual([]);
    expect(kafka.endTxns.at(-1)?.committed).toBe(false);
    // The revocation completes after the batch: partition 1 is released, and 0 goes on.
    kafka.runUntil(() => batches(driver).filter((b) => b.outcome === "committed").length >= 2);
    expect(driver.snapshot.owned).toEqual({ T1: [0] });
  });
});

describe("a fenced member's transaction (KIP-447)", () => {
  it("a member fenced in the middle of a batch sends its offsets with its stale group metadata: refused, and the transaction aborts", () => {
    let fence = false;
    const { driver, kafka } = kip848(eosConfig({ app: { processingMsPerRecord: 200 } }), {
      heartbeat: (request) => {
        if (request.memberEpoch === 0) return { epoch: 1, assignment: { [T1_ID_FOR_TEST]: [0, 1] } };
        return fence ? { error: ErrorCode.FENCED_MEMBER_EPOCH } : { epoch: request.memberEpoch };
      },
      // The coordinator no longer has the member at the epoch it sends (0 once fenced).
      txnOffsetCommitError: (request) => (request.generationId === 1 ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID),
    });
    kafka.runUntil(() => driver.recordRanges().length >= 3);
    fence = true;
    kafka.runUntil(() => batches(driver).some((b) => b.outcome === "aborted"));
    const aborted = batches(driver).find((b) => b.outcome === "aborted");
    expect(aborted?.reason).toBe("CommitFailedException: UNKNOWN_MEMBER_ID");
    expect(kafka.txnOffsetCommits.at(-1)).toMatchObject({ generationId: 0, memberId: driver.snapshot.memberId });
    expect(kafka.endTxns.at(-1)?.committed).toBe(false);
    // Its partitions were lost: nothing to rewind; the next owner starts from the committed offsets.
    expect(aborted?.rewoundTo).toEqual({});
    // What it produced in that transaction is aborted.
    expect(kafka.produced.filter((r) => r.fate === "aborted").length).toBeGreaterThan(0);
  });
});

const T1_ID_FOR_TEST = (eosConfig() as { topics: { id: string }[] }).topics[0]?.id ?? "";

describe("consume-process-produce, transactional (classic member)", () => {
  it("commits offsets in transactions carrying the classic generation and member id", () => {
    const driver = classicEosDriver(eosConfig({ protocol: "classic" }));
    const kafka = new FakeKafka(driver);
    kafka.runUntil(() => batches(driver).filter((b) => b.outcome === "committed").length >= 2);
    expect(kafka.txnOffsetCommits[0]).toMatchObject({ transactionalId: "g1-member-1", generationId: 1, memberId: "m-1" });
    kafka.run(500);
    expect(resultInputs(kafka.committedValues()).sort()).toEqual(committedInputs(kafka));
  });
});

describe("consume-process-produce, idempotent (no transactions)", () => {
  it("sends results with an idempotent producer, then commits offsets with commitSync once they are acknowledged", () => {
    const { driver, kafka } = kip848(eosConfig({ transactional: false }));
    kafka.runUntil(() => driver.sentOf("OffsetCommitRequest").length >= 2);
    expect(driver.sentOf("InitProducerIdRequest")[0]?.message.transactionalId).toBeNull();
    expect(driver.sentOf("AddPartitionsToTxnRequest")).toEqual([]);
    expect(driver.sentOf("EndTxnRequest")).toEqual([]);
    expect(kafka.produced.every((r) => !r.transactional && r.producerId === 7)).toBe(true);
    // The commit follows the acknowledgement of the batch's results.
    const firstCommit = driver.sentOf("OffsetCommitRequest")[0];
    const produced = kafka.produced.length;
    expect(produced).toBeGreaterThan(0);
    expect(firstCommit?.message.topics[0]?.name).toBe("T1");
    expect(batches(driver)[0]).toMatchObject({ outcome: "produced", transactionalId: null });
  });
});

describe("sinks", () => {
  it("an append sink writes a new row per record, an upsert sink the row of the input record", () => {
    for (const sink of ["append", "upsert"] as const) {
      const driver = new ConsumerDriver(
        eosConfig({ app: { mode: "poll", output: null, sink, commit: "sync-after-batch" }, transactional: false }),
        {
          recordSource: syntheticRecords(),
        },
      );
      const kafka = new FakeKafka(driver);
      kafka.run(2000);
      const writes = driver.observations("sink.write");
      expect(writes.length).toBeGreaterThan(5);
      for (const write of writes) {
        expect(write.mode).toBe(sink);
        expect(write.row).toBe(sink === "upsert" ? `${write.inputTopic}-${write.inputPartition}@${write.inputOffset}` : null);
        expect(write.value).toBe(`${write.inputTopic}-${write.inputPartition}@${write.inputOffset}`);
      }
      // Each record is written as its processing ends (10 ms each), before the batch's commit.
      const records = driver.recordRanges()[0];
      const firstWrite = driver.ctx.seen.find((s) => s.observation.type === "sink.write");
      const firstPoll = driver.ctx.seen.find((s) => s.observation.type === "member.records");
      expect(records).toBeDefined();
      expect((firstWrite?.at ?? 0) - (firstPoll?.at ?? 0)).toBe(10_000);
    }
  });
});

describe("consume-process-produce config", () => {
  const base = eosConfig() as Record<string, JsonValue> & { app: Record<string, JsonValue>; consumer: Record<string, JsonValue> };
  const errorOf = (config: JsonValue): string => {
    try {
      parseConsumerMemberConfig(config);
    } catch (error) {
      expect(error).toBeInstanceOf(ConsumerMemberConfigError);
      return (error as Error).message;
    }
    throw new Error("config was accepted");
  };

  it("derives the commit mode from the output and refuses what contradicts it", () => {
    expect(parseConsumerMemberConfig(base).app.commit).toBe("none");
    expect(parseConsumerMemberConfig(eosConfig({ transactional: false })).app.commit).toBe("sync-after-batch");
    expect(errorOf({ ...base, app: { ...base.app, commit: "auto" } })).toContain("'app.commit' must be \"none\"");
    expect(errorOf({ ...base, consumer: { ...base.consumer, "enable.auto.commit": true } })).toContain("'consumer.enable.auto.commit'");
  });

  it.each([
    [{ app: { output: null } }, "'app.output' must be an object"],
    [{ app: { mode: "poll", output: { topic: OUT } } }, "'app.output' needs app.mode"],
    [{ app: { mode: "stream" } }, "'app.mode' must be one of"],
    [{ app: { sink: "log" } }, "'app.sink' must be one of"],
    [{ app: { output: { topic: "nope", transactional: true } } }, "'app.output.topic' names no topic"],
    [{ app: { output: { topic: OUT, transactional: true, producer: { acks: "1" } } } }, "'app.output.producer'"],
    [{ app: { output: { topic: OUT, transactional: true, producer: { "transactional.id": "x" } } } }, "'app.output.producer'"],
    [{ source: { kind: "synthetic" } }, "'source.kind' must be \"fetch\""],
    [{ transactionCoordinators: [] }, "'transactionCoordinators' must name at least one"],
  ])("refuses %j", (override, message) => {
    const { app, ...rest } = override as { app?: Record<string, JsonValue> } & Record<string, JsonValue>;
    expect(errorOf({ ...base, ...rest, app: { ...base.app, ...app } })).toContain(message);
  });

  it("names the transaction coordinators in its config", () => {
    expect(parseConsumerMemberConfig(base).transactionCoordinators).toEqual([TXN_COORDINATOR]);
  });
});
