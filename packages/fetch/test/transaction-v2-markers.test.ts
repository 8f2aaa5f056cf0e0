import { ErrorCode, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import { answer, type ClusterSpec, cluster, produceRequest } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";
import { stampedBatch, writeMarkers } from "./txn-fixtures.js";

/**
 * A partition leader's check of a transaction marker's producer epoch
 * (Kafka 4.2's `ProducerAppendInfo.checkProducerEpoch`): a marker of
 * transaction version 2 (WriteTxnMarkers v2, KIP-1228) must carry an epoch
 * above the producer's, but for a retried marker of a transaction already
 * ended there (KAFKA-19999); earlier markers need one not below it.
 */

const SPEC: ClusterSpec = { brokers: 1, topics: [{ name: "t", partitions: 1, replicationFactor: 1 }] };
const PRODUCER = 7;

function started(): SimNetwork {
  const net = cluster(SPEC);
  net.addClient("client");
  net.startAll();
  net.runFor(ms(20));
  return net;
}

/** Appends a transactional batch of the producer at `epoch` (opening its transaction on t-0). */
function write(net: SimNetwork, epoch: number, sequence: number): void {
  const request = produceRequest("t", 0, stampedBatch({ producerId: PRODUCER, epoch, sequence, transactional: true }), 1);
  net.send("client", "broker-0", request);
  net.runUntilTrue(() => answer(net, "ProduceResponse", request.correlationId) !== undefined, seconds(1));
  expect(answer(net, "ProduceResponse", request.correlationId)?.responses[0]?.partitionResponses[0]?.errorCode).toBe(ErrorCode.NONE);
}

/** Sends a COMMIT marker of the producer at `epoch` and returns its error. */
function marker(net: SimNetwork, epoch: number, transactionVersion: number): number | undefined {
  const request = writeMarkers(PRODUCER, epoch, true, [0], 0, "t", transactionVersion);
  net.send("client", "broker-0", request);
  net.runUntilTrue(() => answer(net, "WriteTxnMarkersResponse", request.correlationId) !== undefined, seconds(1));
  return answer(net, "WriteTxnMarkersResponse", request.correlationId)?.markers[0]?.topics[0]?.partitions[0]?.errorCode;
}

const logEnd = (net: SimNetwork) => net.actor<BrokerActor>("broker-0").replicaManager.partition("t", 0)?.log.logEndOffset;
const markerEpochs = (net: SimNetwork) => net.observed("broker.txn-marker").map((o) => o.event.producerEpoch);

describe("transaction markers of transaction version 2 on the partition leader", () => {
  it("needs an epoch above the producer's while its transaction is open: equal or older is INVALID_PRODUCER_EPOCH", () => {
    const net = started();
    write(net, 3, 0);
    expect(marker(net, 3, 2)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(marker(net, 2, 2)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(logEnd(net)).toBe(1);
    expect(marker(net, 4, 2)).toBe(ErrorCode.NONE);
    expect(logEnd(net)).toBe(2);
    expect(markerEpochs(net)).toEqual([4]);
  });

  it("accepts a retried marker at the producer's epoch once its transaction ended there, and writes it again (KAFKA-19999)", () => {
    const net = started();
    write(net, 3, 0);
    expect(marker(net, 4, 2)).toBe(ErrorCode.NONE);
    expect(marker(net, 4, 2)).toBe(ErrorCode.NONE);
    expect(logEnd(net)).toBe(3);
    expect(markerEpochs(net)).toEqual([4, 4]);
    // An older one is still refused.
    expect(marker(net, 3, 2)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
  });

  it("refuses a marker at the producer's epoch once the next transaction is open there", () => {
    const net = started();
    write(net, 3, 0);
    expect(marker(net, 4, 2)).toBe(ErrorCode.NONE);
    // The next transaction, at the epoch the marker carried.
    write(net, 4, 0);
    expect(marker(net, 4, 2)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(marker(net, 5, 2)).toBe(ErrorCode.NONE);
    expect(markerEpochs(net)).toEqual([4, 5]);
  });

  it("before transaction version 2 a marker at the producer's epoch is accepted, as before; an older one is not", () => {
    const net = started();
    write(net, 3, 0);
    expect(marker(net, 2, 0)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(marker(net, 3, 0)).toBe(ErrorCode.NONE);
    expect(marker(net, 3, 0)).toBe(ErrorCode.NONE);
    expect(markerEpochs(net)).toEqual([3, 3]);
  });

  it("followers replicate a marker of transaction version 2 without checking its epoch", () => {
    const net = cluster({ brokers: 2, topics: [{ name: "t", partitions: 1, replicationFactor: 2 }] });
    net.addClient("client");
    net.startAll();
    net.runFor(ms(50));
    write(net, 3, 0);
    expect(marker(net, 4, 2)).toBe(ErrorCode.NONE);
    expect(marker(net, 4, 2)).toBe(ErrorCode.NONE);
    net.runFor(ms(200));
    const follower = net.actor<BrokerActor>("broker-1").replicaManager.partition("t", 0);
    expect(follower?.log.logEndOffset).toBe(3);
    expect(follower?.log.producerState.entry(PRODUCER)?.producerEpoch).toBe(4);
  });
});
