import type { JsonValue } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { ConsumerMemberConfigError, parseConsumerMemberConfig } from "../src/consumer/consumer-member-config.js";
import type { ProcessedBatchObservation } from "../src/observations.js";
import { ConsumerDriver } from "./consumer-test-support.js";
import { eosConfig, FakeKafka, syntheticRecords } from "./eos-test-support.js";

/**
 * The member config's `transactionVersion` (the cluster's finalized
 * transaction.version) and the transactional output's producer running it.
 */

function errorOf(config: JsonValue): string {
  try {
    parseConsumerMemberConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConsumerMemberConfigError);
    return (error as Error).message;
  }
  throw new Error("config was accepted");
}

/** The transactional requests the member sent, as `type@version`, each kind once, in order of first use. */
function transactionalRequests(driver: ConsumerDriver): string[] {
  const kinds = ["AddPartitionsToTxnRequest", "ProduceRequest", "AddOffsetsToTxnRequest", "TxnOffsetCommitRequest", "EndTxnRequest"];
  const seen = driver.ctx.sent
    .map((s) => s.message)
    .filter((m) => kinds.includes(m.type))
    .map((m) => `${m.type}@${"apiVersion" in m ? m.apiVersion : "?"}`);
  return seen.filter((s, i) => seen.indexOf(s) === i);
}

function run(config: JsonValue): { driver: ConsumerDriver; kafka: FakeKafka } {
  const driver = new ConsumerDriver(config, { recordSource: syntheticRecords() });
  const kafka = new FakeKafka(driver);
  const batches = () => driver.observations("member.batch") as unknown as ProcessedBatchObservation[];
  kafka.runUntil(() => batches().filter((b) => b.outcome === "committed").length >= 3);
  return { driver, kafka };
}

describe("transactionVersion in the member config", () => {
  it("is 0 by default; 0, 1 and 2 are taken", () => {
    expect(parseConsumerMemberConfig(eosConfig()).transactionVersion).toBe(0);
    for (const transactionVersion of [0, 1, 2]) {
      expect(parseConsumerMemberConfig(eosConfig({ transactionVersion })).transactionVersion).toBe(transactionVersion);
    }
  });

  it.each([3, -1, 1.5, "2", null])("refuses %j with one line naming the field", (transactionVersion) => {
    const config = { ...(eosConfig() as Record<string, JsonValue>), transactionVersion };
    expect(errorOf(config)).toBe(
      `consumer member config: 'transactionVersion' must be an integer from 0 to 2, got ${JSON.stringify(transactionVersion)}`,
    );
  });
});

describe("a transactional output at transaction version 2", () => {
  it("sends no AddPartitionsToTxn or AddOffsetsToTxn: Produce v12, TxnOffsetCommit v5, EndTxn v5", () => {
    const { driver } = run(eosConfig({ transactionVersion: 2 }));
    expect(transactionalRequests(driver)).toEqual(["ProduceRequest@12", "TxnOffsetCommitRequest@5", "EndTxnRequest@5"]);
  });

  it("runs each transaction at the epoch the previous EndTxn returned", () => {
    const { kafka } = run(eosConfig({ transactionVersion: 2 }));
    expect(kafka.endTxns.slice(0, 3).map((e) => e.producerEpoch)).toEqual([0, 1, 2]);
    expect(kafka.txnOffsetCommits.slice(0, 3).map((c) => c.producerEpoch)).toEqual([0, 1, 2]);
    // Each transaction's results carry its epoch: the producer took the bumped one, not an InitProducerId of its own.
    const produced = new Set(kafka.produced.map((r) => r.producerEpoch));
    expect([...produced].slice(0, 3)).toEqual([0, 1, 2]);
  });

  it("before transaction version 2, as before: AddPartitionsToTxn and AddOffsetsToTxn, Produce v9, EndTxn v3, one epoch", () => {
    const { driver, kafka } = run(eosConfig({ transactionVersion: 1 }));
    expect(transactionalRequests(driver)).toEqual([
      "AddPartitionsToTxnRequest@3",
      "ProduceRequest@9",
      "AddOffsetsToTxnRequest@3",
      "TxnOffsetCommitRequest@3",
      "EndTxnRequest@3",
    ]);
    expect(new Set(kafka.endTxns.map((e) => e.producerEpoch))).toEqual(new Set([0]));
  });
});
