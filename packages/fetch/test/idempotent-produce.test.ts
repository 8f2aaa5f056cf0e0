import { ErrorCode, ms, type ProduceResponse, type RecordBatch, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import { BROKER_PRODUCER_ID_BASE } from "../src/index.js";
import { answer, type ClusterSpec, cluster, partitionOn, produceRequest } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";
import { initProducerIdRequest, type ProducerStamp, stampedBatch } from "./txn-fixtures.js";

const SINGLE: ClusterSpec = {
  brokers: 1,
  topics: [{ name: "t", partitions: 1, replicationFactor: 1 }],
  broker: { "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};
const REPLICATED: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 1, replicationFactor: 3 }],
  broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};

function started(spec: ClusterSpec): SimNetwork {
  const net = cluster(spec);
  net.addClient("client");
  net.startAll();
  net.runFor(ms(20));
  return net;
}

type PartitionAnswer = ProduceResponse["responses"][number]["partitionResponses"][number];

/** Sends one stamped batch to `to` and waits for the answer's partition entry. */
function produce(net: SimNetwork, stamp: ProducerStamp, records = 1, acks = 1, to = "broker-0"): PartitionAnswer {
  const request = produceRequest("t", 0, stampedBatch(stamp, records), acks);
  net.send("client", to, request);
  net.runUntilTrue(() => answer(net, "ProduceResponse", request.correlationId) !== undefined, seconds(10));
  const partition = answer(net, "ProduceResponse", request.correlationId)?.responses[0]?.partitionResponses[0];
  if (partition === undefined) throw new Error("no produce answer");
  return partition;
}

function logOf(net: SimNetwork, broker: string): RecordBatch[] {
  return net.actor<BrokerActor>(broker).replicaManager.partition("t", 0)?.log.batches() ?? [];
}

describe("idempotent produce on the partition leader", () => {
  it("answers a duplicate with the original offsets and appends it only once", () => {
    const net = started(SINGLE);
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 0 }, 3)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 3 }, 2)).toMatchObject({ errorCode: 0, baseOffset: 3 });
    // A retry of either of the producer's last five batches: acknowledged again, nothing appended.
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 0 }, 3)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 3 }, 2)).toMatchObject({ errorCode: 0, baseOffset: 3 });
    expect(logOf(net, "broker-0").map((b) => [b.baseOffset, b.baseSequence])).toEqual([
      [0, 0],
      [3, 3],
    ]);
    expect(net.observed("broker.append")).toHaveLength(2);
    // Another producer's sequences are its own.
    expect(produce(net, { producerId: 8, epoch: 0, sequence: 0 })).toMatchObject({ errorCode: 0, baseOffset: 5 });
  });

  it("remembers five batches: an older duplicate, a gap and a sequence from the past are out of order", () => {
    const net = started(SINGLE);
    for (let seq = 0; seq < 6; seq++) expect(produce(net, { producerId: 7, epoch: 0, sequence: seq }).errorCode).toBe(0);
    // Sequence 0 is no longer among the last five batches.
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 0 }).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 1 }).errorCode).toBe(0);
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 8 }).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 6 })).toMatchObject({ errorCode: 0, baseOffset: 6 });
    expect(logOf(net, "broker-0")).toHaveLength(7);
  });

  it("accepts any first sequence from an unknown producer, and a new epoch only from sequence 0", () => {
    const net = started(SINGLE);
    expect(produce(net, { producerId: 9, epoch: 3, sequence: 42 }).errorCode).toBe(0);
    expect(produce(net, { producerId: 9, epoch: 4, sequence: 5 }).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(produce(net, { producerId: 9, epoch: 4, sequence: 0 })).toMatchObject({ errorCode: 0, baseOffset: 1 });
  });

  it("fences an older epoch with INVALID_PRODUCER_EPOCH", () => {
    const net = started(SINGLE);
    expect(produce(net, { producerId: 7, epoch: 2, sequence: 0 }).errorCode).toBe(0);
    expect(produce(net, { producerId: 7, epoch: 1, sequence: 1 }).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(produce(net, { producerId: 7, epoch: 1, sequence: 0 }).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(produce(net, { producerId: 7, epoch: 2, sequence: 1 }).errorCode).toBe(0);
  });

  it("refuses a plain batch while the producer's transaction is open, and control batches from clients", () => {
    const net = started(SINGLE);
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 0, transactional: true }).errorCode).toBe(0);
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 1 }).errorCode).toBe(ErrorCode.INVALID_TXN_STATE);
    const control = produceRequest("t", 0, { ...stampedBatch({ producerId: 7, epoch: 0, sequence: 1 }), isControl: true });
    net.send("client", "broker-0", control);
    net.runFor(ms(5));
    expect(answer(net, "ProduceResponse", control.correlationId)?.responses[0]?.partitionResponses[0]?.errorCode).toBe(
      ErrorCode.INVALID_RECORD,
    );
  });

  it("keeps the producer state across a broker restart (rebuilt from the log)", () => {
    const net = started(SINGLE);
    produce(net, { producerId: 7, epoch: 0, sequence: 0 }, 2);
    produce(net, { producerId: 7, epoch: 1, sequence: 0 }, 2);
    net.restart("broker-0");
    expect(net.runUntilTrue(() => partitionOn(net, "broker-0", "t", 0)?.role === "leader", seconds(30))).toBe(true);
    expect(produce(net, { producerId: 7, epoch: 1, sequence: 0 }, 2)).toMatchObject({ errorCode: 0, baseOffset: 2 });
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 2 }).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(produce(net, { producerId: 7, epoch: 1, sequence: 5 }).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(produce(net, { producerId: 7, epoch: 1, sequence: 2 })).toMatchObject({ errorCode: 0, baseOffset: 4 });
  });

  it("hands the producer state to a new leader through replication", () => {
    const net = started(REPLICATED);
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 0 }, 2, -1)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 2 }, 2, -1)).toMatchObject({ errorCode: 0, baseOffset: 2 });
    net.control("controller", { command: "move-leader", topic: "t", partition: 0, to: 1 });
    expect(net.runUntilTrue(() => partitionOn(net, "broker-1", "t", 0)?.role === "leader", seconds(5))).toBe(true);
    // The retry of the last batch reaches the new leader: a duplicate, with its original offset.
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 2 }, 2, -1, "broker-1")).toMatchObject({ errorCode: 0, baseOffset: 2 });
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 5 }, 1, -1, "broker-1").errorCode).toBe(
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
    );
    expect(produce(net, { producerId: 7, epoch: 0, sequence: 4 }, 1, -1, "broker-1")).toMatchObject({ errorCode: 0, baseOffset: 4 });
    expect(logOf(net, "broker-1").map((b) => b.baseOffset)).toEqual([0, 2, 4]);
  });

  it("allocates producer ids for InitProducerId without a transactional id, never the same twice, even after a restart", () => {
    const net = started(SINGLE);
    const ids: number[] = [];
    const init = (transactionalId: string | null = null) => {
      const request = initProducerIdRequest(transactionalId);
      net.send("client", "broker-0", request);
      net.runFor(ms(5));
      return answer(net, "InitProducerIdResponse", request.correlationId);
    };
    for (let i = 0; i < 3; i++) ids.push(init()?.producerId ?? -1);
    net.restart("broker-0");
    net.runFor(seconds(2));
    ids.push(init()?.producerId ?? -1);
    expect(ids.slice(0, 3)).toEqual([BROKER_PRODUCER_ID_BASE, BROKER_PRODUCER_ID_BASE + 1, BROKER_PRODUCER_ID_BASE + 2]);
    expect(new Set(ids).size).toBe(4);
    expect(ids[3]).toBeGreaterThan(BROKER_PRODUCER_ID_BASE + 2);
    expect(init()).toMatchObject({ producerEpoch: 0, errorCode: 0 });
    // Transactional ids belong to transaction coordinators.
    expect(init("tx")?.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });
});
