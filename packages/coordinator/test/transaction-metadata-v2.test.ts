import type { TransactionVersion } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { IllegalStateError, TransactionMetadata, type TransactionMetadataInit, type TxnTransitMetadata } from "../src/index.js";

/**
 * TransactionMetadata's transitions under transaction version 2 and the
 * sanity checks of completeTransitionTo (Kafka 4.2's `validProducerEpoch`):
 * the version 2 transitions pass, broken ones still fail.
 */

function metadata(fields: Partial<TransactionMetadataInit> = {}): TransactionMetadata {
  return new TransactionMetadata("txn", {
    producerId: 7,
    lastProducerId: 7,
    nextProducerId: -1,
    producerEpoch: 4,
    lastProducerEpoch: 3,
    txnTimeoutMs: 60_000,
    state: "Ongoing",
    topicPartitions: ["out-0"],
    txnStartTimestamp: 100,
    txnLastUpdateTimestamp: 100,
    clientTransactionVersion: 2,
    ...fields,
  });
}

/** Prepares with `prepare`, then completes a transit altered by `change` (nothing: the prepared one). */
function complete(
  txn: TransactionMetadata,
  prepare: (t: TransactionMetadata) => TxnTransitMetadata,
  change: Partial<TxnTransitMetadata> = {},
): void {
  const transit = prepare(txn);
  txn.completeTransitionTo({ ...transit, ...change });
}

const commitV = (version: TransactionVersion) => (t: TransactionMetadata) =>
  t.prepareAbortOrCommit("PrepareCommit", version, -1, 200, false);
const emptyAbortV = (version: TransactionVersion) => (t: TransactionMetadata) =>
  t.prepareAbortOrCommit("PrepareAbort", version, -1, 200, true);

describe("PrepareCommit / PrepareAbort", () => {
  it("version 2 bumps the epoch and remembers the current one; the transit is accepted", () => {
    const txn = metadata();
    complete(txn, commitV(2));
    expect([txn.state, txn.producerId, txn.producerEpoch, txn.lastProducerEpoch, txn.txnStartTimestamp]).toEqual([
      "PrepareCommit",
      7,
      5,
      4,
      100,
    ]);
  });

  it("version 0 keeps the epoch", () => {
    const txn = metadata({ clientTransactionVersion: 0 });
    complete(txn, commitV(0));
    expect([txn.state, txn.producerEpoch, txn.lastProducerEpoch, txn.clientTransactionVersion]).toEqual(["PrepareCommit", 4, 3, 0]);
  });

  it.each<[string, TransactionVersion, Partial<TxnTransitMetadata>]>([
    ["a version 2 bump whose last epoch is not the current one", 2, { lastProducerEpoch: 3 }],
    ["a version 2 bump to another producer id", 2, { producerId: 8 }],
    ["a version 0 transit with a bumped epoch", 0, { producerEpoch: 5 }],
    ["another start time", 2, { txnStartTimestamp: 150 }],
    ["other partitions", 2, { topicPartitions: ["out-0", "out-1"] }],
  ])("refuses %s", (_name, version, change) => {
    const txn = metadata({ clientTransactionVersion: version });
    expect(() => complete(txn, commitV(version), change)).toThrow(IllegalStateError);
  });

  it("version 2 aborts with no transaction open (from Empty, CompleteCommit, CompleteAbort) starting now; version 0 may not", () => {
    for (const state of ["Empty", "CompleteCommit", "CompleteAbort"] as const) {
      const txn = metadata({ state, topicPartitions: [], txnStartTimestamp: state === "Empty" ? -1 : 50 });
      complete(txn, emptyAbortV(2));
      expect([txn.state, txn.producerEpoch, txn.lastProducerEpoch, txn.txnStartTimestamp]).toEqual(["PrepareAbort", 5, 4, 200]);
    }
    const v0 = metadata({ state: "CompleteCommit", topicPartitions: [], txnStartTimestamp: 50, clientTransactionVersion: 0 });
    expect(() => complete(v0, emptyAbortV(0))).toThrow(IllegalStateError);
    // Only an abort: a commit cannot come from Empty.
    const empty = metadata({ state: "Empty", topicPartitions: [], txnStartTimestamp: -1 });
    expect(() => empty.prepareAbortOrCommit("PrepareCommit", 2, -1, 200, true)).toThrow(IllegalStateError);
  });

  it("refuses to bump past 32767", () => {
    const txn = metadata({ producerEpoch: 32767 });
    expect(() => txn.prepareAbortOrCommit("PrepareCommit", 2, 9, 200, false)).toThrow("Illegal new producer epoch -32768");
    expect(txn.pendingState).toBeNull();
  });
});

describe("CompleteCommit / CompleteAbort", () => {
  it("version 2 keeps the bumped epoch", () => {
    const txn = metadata();
    complete(txn, commitV(2));
    complete(txn, (t) => t.prepareComplete(300));
    expect([txn.state, txn.producerId, txn.producerEpoch, txn.lastProducerEpoch, txn.nextProducerId, txn.partitions()]).toEqual([
      "CompleteCommit",
      7,
      5,
      4,
      -1,
      [],
    ]);
  });

  it("switches to the next producer id at epoch 0 when the epochs ran out, the last epoch 32766", () => {
    const txn = metadata({ producerEpoch: 32766, lastProducerEpoch: 32765 });
    complete(txn, (t) => t.prepareAbortOrCommit("PrepareCommit", 2, 1000, 200, false));
    expect([txn.producerId, txn.producerEpoch, txn.lastProducerEpoch, txn.nextProducerId]).toEqual([7, 32767, 32766, 1000]);
    complete(txn, (t) => t.prepareComplete(300));
    expect([txn.producerId, txn.lastProducerId, txn.producerEpoch, txn.lastProducerEpoch, txn.nextProducerId]).toEqual([
      1000, 7, 0, 32766, -1,
    ]);
  });

  it.each<[string, Partial<TxnTransitMetadata>]>([
    ["a switch whose previous producer id is not the current one", { lastProducerId: 9 }],
    ["a switch that changes the last epoch", { lastProducerEpoch: 32767 }],
  ])("refuses %s", (_name, change) => {
    const txn = metadata({ producerEpoch: 32766, lastProducerEpoch: 32765 });
    complete(txn, (t) => t.prepareAbortOrCommit("PrepareCommit", 2, 1000, 200, false));
    expect(() => complete(txn, (t) => t.prepareComplete(300), change)).toThrow(IllegalStateError);
  });

  it("refuses another epoch or producer id without a switch", () => {
    for (const change of [{ producerEpoch: 6 }, { producerId: 1000 }]) {
      const txn = metadata();
      complete(txn, commitV(2));
      expect(() => complete(txn, (t) => t.prepareComplete(300), change)).toThrow(IllegalStateError);
    }
  });

  it("before version 2 the producer id never changes, even with a next producer id set", () => {
    const txn = metadata({ clientTransactionVersion: 0 });
    complete(txn, (t) => t.prepareAbortOrCommit("PrepareAbort", 0, 1000, 200, false));
    complete(txn, (t) => t.prepareComplete(300));
    expect([txn.state, txn.producerId, txn.producerEpoch]).toEqual(["CompleteAbort", 7, 4]);
  });
});

describe("Ongoing", () => {
  it("an add keeps the epoch and takes the request's version; another epoch is refused", () => {
    const txn = metadata({ state: "CompleteCommit", topicPartitions: [], clientTransactionVersion: 0 });
    complete(txn, (t) => t.prepareAddPartitions(["out-1"], 400, 2));
    expect([txn.state, txn.producerEpoch, txn.clientTransactionVersion, txn.txnStartTimestamp, txn.partitions()]).toEqual([
      "Ongoing",
      4,
      2,
      400,
      ["out-1"],
    ]);
    const other = metadata();
    expect(() => complete(other, (t) => t.prepareAddPartitions(["out-1"], 400, 2), { producerEpoch: 5 })).toThrow(IllegalStateError);
  });
});
