import { ErrorCode, ms, seconds, topicIdFor } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { ControllerActor } from "../src/controller/controller-actor.js";
import { changePartition, type PartitionRegistration } from "../src/controller/partition-registration.js";
import {
  answer,
  type ClusterSpec,
  cluster,
  listOffsetsRequest,
  nextCorrelationId,
  partitionOn,
  produceRequest,
  producerBatch,
} from "./data-path-fixtures.js";

const P: PartitionRegistration = {
  topic: "t",
  topicId: "id",
  partition: 0,
  replicas: [0, 1, 2],
  isr: [0, 1, 2],
  leader: 0,
  leaderEpoch: 3,
  partitionEpoch: 7,
};
const all = () => true;

describe("partition changes (PartitionChangeBuilder)", () => {
  it("keeps a valid leader, else elects the first ISR replica in replica order that is acceptable", () => {
    expect(changePartition(P, { targetIsr: [0, 2], election: { kind: "online" }, isAcceptableLeader: all })).toEqual({
      ...P,
      isr: [0, 2],
      partitionEpoch: 8,
    });
    const withoutLeader = changePartition(P, { targetIsr: [2, 1], election: { kind: "online" }, isAcceptableLeader: (id) => id !== 0 });
    expect(withoutLeader).toMatchObject({ leader: 1, leaderEpoch: 4, partitionEpoch: 8, isr: [2, 1] });
    expect(changePartition(P, { election: { kind: "online" }, isAcceptableLeader: all })).toBeUndefined();
  });

  it("goes offline rather than electing outside the ISR, and keeps the last ISR member", () => {
    const lonely = { ...P, isr: [0] };
    const offline = changePartition(lonely, { targetIsr: [], election: { kind: "online" }, isAcceptableLeader: (id) => id !== 0 });
    expect(offline).toMatchObject({ leader: -1, leaderEpoch: 4, isr: [0] });
    const back = changePartition(offline as PartitionRegistration, { election: { kind: "online" }, isAcceptableLeader: (id) => id === 0 });
    expect(back).toMatchObject({ leader: 0, leaderEpoch: 5, isr: [0] });
  });

  it("moves the leader to a preferred target only when it is an acceptable ISR member", () => {
    expect(changePartition(P, { election: { kind: "preferred", target: 2 }, isAcceptableLeader: all })).toMatchObject({
      leader: 2,
      leaderEpoch: 4,
    });
    expect(changePartition({ ...P, isr: [0, 1] }, { election: { kind: "preferred", target: 2 }, isAcceptableLeader: all })).toBeUndefined();
  });
});

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 2, replicationFactor: 2 }],
  broker: { "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};

describe("controller", () => {
  it("validates AlterPartition like Kafka: stale epochs, non-leaders and ineligible replicas are refused", () => {
    const net = cluster(SPEC);
    net.addClient("client-b0");
    net.startAll();
    net.runFor(ms(20));
    const alter = (brokerId: number, brokerEpoch: number, leaderEpoch: number, partitionEpoch: number, newIsr: number[]) => {
      const request = {
        type: "AlterPartitionRequest" as const,
        correlationId: nextCorrelationId(),
        apiVersion: 2,
        clientId: "test",
        brokerId,
        brokerEpoch,
        topics: [
          { topicId: topicIdFor("t"), partitions: [{ partitionIndex: 0, leaderEpoch, newIsr, leaderRecoveryState: 0, partitionEpoch }] },
        ],
      };
      net.send("client-b0", "controller", request);
      net.runFor(ms(3));
      const response = answer(net, "AlterPartitionResponse", request.correlationId);
      return response?.errorCode !== 0 ? response?.errorCode : response.topics[0]?.partitions[0]?.errorCode;
    };
    const epoch0 = (net.snapshot("controller") as { brokers: { nodeId: number; epoch: number }[] }).brokers[0]?.epoch ?? -1;
    expect(alter(0, epoch0 + 100, 0, 0, [0])).toBe(ErrorCode.STALE_BROKER_EPOCH);
    expect(alter(0, epoch0, 1, 0, [0])).toBe(ErrorCode.NOT_CONTROLLER);
    expect(alter(1, (net.snapshot("controller") as { brokers: { epoch: number }[] }).brokers[1]?.epoch ?? -1, 0, 0, [1])).toBe(
      ErrorCode.INVALID_REQUEST,
    );
    expect(alter(0, epoch0, 0, 0, [1])).toBe(ErrorCode.INVALID_REQUEST);
    expect(alter(0, epoch0, 0, 0, [0, 2])).toBe(ErrorCode.INVALID_REQUEST);
    expect(alter(0, epoch0, 0, 0, [0])).toBe(ErrorCode.NONE);
    expect(alter(0, epoch0, 0, 0, [0, 1])).toBe(ErrorCode.INVALID_UPDATE_VERSION);
    net.crash("broker-1");
    net.runFor(seconds(4));
    const current = net.actor<ControllerActor>("controller").partition("t", 0);
    expect(current?.isr).toEqual([0]);
    expect(alter(0, epoch0, 0, current?.partitionEpoch ?? -1, [0, 1])).toBe(ErrorCode.INELIGIBLE_REPLICA);
  });

  it("refuses a restarted broker's registration while its old session lives, then takes it back fenced until caught up", () => {
    const net = cluster(SPEC);
    net.startAll();
    net.runFor(seconds(1));
    net.restart("broker-2");
    let refused = 0;
    net.onDeliver = (_from, to, message) => {
      if (
        to === "broker-2" &&
        message.type === "BrokerRegistrationResponse" &&
        message.errorCode === ErrorCode.DUPLICATE_BROKER_REGISTRATION
      )
        refused++;
    };
    net.runFor(seconds(6));
    expect(refused).toBeGreaterThan(0);
    const controller = net.snapshot("controller") as { brokers: { nodeId: number; epoch: number; fenced: boolean }[] };
    expect(controller.brokers[2]).toMatchObject({ fenced: false });
    const reasons = net.observed("controller.partition").map((o) => o.event.reason);
    expect(reasons).toContain("broker session expired: broker 2 fenced");
    // broker-2 follows partition 1 again (replicas [1, 2]) and is back in its ISR.
    expect(partitionOn(net, "broker-2", "t", 1)?.role).toBe("follower");
    expect(net.actor<ControllerActor>("controller").partition("t", 1)?.isr).toEqual([1, 2]);
  });

  it("fences a broker of the initial cluster that does not register in time, and takes it back once it registers and catches up", () => {
    const net = cluster(SPEC);
    net.dropIf = (from, _to, message) => from === "broker-2" && message.type === "BrokerRegistrationRequest" && net.now < seconds(5);
    net.startAll();
    net.runFor(seconds(4));
    const fencedAt = net.snapshot("controller") as { brokers: { fenced: boolean }[] };
    expect(fencedAt.brokers[2]?.fenced).toBe(true);
    expect(net.actor<ControllerActor>("controller").partition("t", 1)?.isr).toEqual([1]);
    net.runFor(seconds(8));
    const back = net.snapshot("controller") as { brokers: { fenced: boolean; epoch: number }[] };
    expect(back.brokers[2]).toMatchObject({ fenced: false });
    expect(net.actor<ControllerActor>("controller").partition("t", 1)?.isr).toEqual([1, 2]);
  });

  it("survives its own crash: the metadata log is replayed and brokers get the full state", () => {
    const net = cluster(SPEC);
    net.startAll();
    net.runFor(seconds(1));
    net.control("controller", { command: "move-leader", topic: "t", partition: 0, to: 1 });
    net.runFor(ms(20));
    net.restart("controller");
    net.runFor(seconds(5));
    const controller = net.actor<ControllerActor>("controller");
    expect(controller.partition("t", 0)).toMatchObject({ leader: 1, leaderEpoch: 1 });
    expect((net.snapshot("controller") as { controllerEpoch: number }).controllerEpoch).toBe(2);
    expect((net.snapshot("controller") as { brokers: { fenced: boolean }[] }).brokers.every((b) => !b.fenced)).toBe(true);
    expect(partitionOn(net, "broker-1", "t", 0)).toMatchObject({ role: "leader", leaderEpoch: 1 });
  });

  it("answers Metadata from the broker's cache, and OFFSET_NOT_AVAILABLE while a new leader's high watermark lags its epoch start", () => {
    const net = cluster({ ...SPEC, topics: [{ name: "t", partitions: 1, replicationFactor: 3 }] });
    net.addClient("client");
    net.startAll();
    net.runFor(ms(20));
    net.send("client", "broker-0", produceRequest("t", 0, producerBatch(70), 1));
    // The followers have the record but learn the high watermark only with their next (parked) fetch answer.
    net.runFor(ms(10));
    expect(partitionOn(net, "broker-1", "t", 0)).toMatchObject({ logEndOffset: 1, highWatermark: 0 });
    net.control("controller", { command: "move-leader", topic: "t", partition: 0, to: 1 });
    // The new leader has its metadata; its followers have not fetched from it yet.
    net.runFor(ms(1));

    const metadata = {
      type: "MetadataRequest" as const,
      correlationId: nextCorrelationId(),
      apiVersion: 12,
      clientId: "client",
      topics: [
        { topicId: null, name: "t" },
        { topicId: null, name: "nope" },
      ],
    };
    net.send("client", "broker-2", metadata);
    const latest = listOffsetsRequest("t", 0, -1, 1);
    net.send("client", "broker-1", latest);
    net.runFor(ms(3));
    const described = answer(net, "MetadataResponse", metadata.correlationId);
    expect(described?.brokers.map((b) => [b.nodeId, b.host])).toEqual([
      [0, "broker-0"],
      [1, "broker-1"],
      [2, "broker-2"],
    ]);
    expect(described?.topics[0]?.partitions[0]).toMatchObject({ errorCode: 0, leaderId: 1, leaderEpoch: 1, replicaNodes: [0, 1, 2] });
    expect(described?.topics[1]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: "nope", partitions: [] });
    expect(answer(net, "ListOffsetsResponse", latest.correlationId)?.topics[0]?.partitions[0]?.errorCode).toBe(
      ErrorCode.OFFSET_NOT_AVAILABLE,
    );

    // Once the followers fetched from the new leader, its high watermark reaches the epoch start.
    net.runFor(ms(50));
    const again = listOffsetsRequest("t", 0, -1, 1);
    net.send("client", "broker-1", again);
    net.runFor(ms(3));
    expect(answer(net, "ListOffsetsResponse", again.correlationId)?.topics[0]?.partitions[0]).toMatchObject({
      errorCode: 0,
      offset: 1,
      leaderEpoch: 1,
    });
  });
});

describe("CreateTopics", () => {
  it("creates a topic over the unfenced brokers, pushes it to every broker, and refuses what Kafka refuses", () => {
    const net = cluster({ ...SPEC, broker: { ...SPEC.broker, "num.partitions": 3, "default.replication.factor": 2 } });
    net.addClient("client");
    net.startAll();
    net.runFor(ms(20));
    const create = (topics: { name: string; numPartitions: number; replicationFactor: number }[], validateOnly = false) => {
      const request = {
        type: "CreateTopicsRequest" as const,
        correlationId: nextCorrelationId(),
        apiVersion: 4,
        clientId: "client",
        topics,
        validateOnly,
      };
      net.send("client", "controller", request);
      net.runFor(ms(5));
      return answer(net, "CreateTopicsResponse", request.correlationId)?.topics.map((t) => [t.name, t.errorCode, t.numPartitions]);
    };
    expect(create([{ name: "checked", numPartitions: 2, replicationFactor: 1 }], true)).toEqual([["checked", 0, 2]]);
    expect(
      create([
        { name: "orders", numPartitions: -1, replicationFactor: -1 },
        { name: "t", numPartitions: 1, replicationFactor: 1 },
        { name: "bad/name", numPartitions: 1, replicationFactor: 1 },
        { name: "none", numPartitions: 0, replicationFactor: 1 },
        { name: "wide", numPartitions: 1, replicationFactor: 4 },
      ]),
    ).toEqual([
      ["orders", ErrorCode.NONE, 3],
      ["t", ErrorCode.TOPIC_ALREADY_EXISTS, -1],
      ["bad/name", ErrorCode.INVALID_TOPIC_EXCEPTION, -1],
      ["none", ErrorCode.INVALID_PARTITIONS, -1],
      ["wide", ErrorCode.INVALID_REPLICATION_FACTOR, -1],
    ]);
    expect(net.actor<ControllerActor>("controller").partition("orders", 1)).toMatchObject({ replicas: [1, 2], leader: 1 });
    expect(net.actor<ControllerActor>("controller").partition("checked", 0)).toBeUndefined();
    net.runFor(ms(50));
    const metadata = {
      type: "MetadataRequest" as const,
      correlationId: nextCorrelationId(),
      apiVersion: 12,
      clientId: "client",
      topics: [{ topicId: null, name: "orders" }],
    };
    net.send("client", "broker-0", metadata);
    net.runFor(ms(3));
    expect(answer(net, "MetadataResponse", metadata.correlationId)?.topics[0]?.partitions.map((p) => p.leaderId)).toEqual([0, 1, 2]);
    // A restarted controller rebuilds its topics from its records: the topic still exists.
    net.restart("controller");
    net.runFor(ms(50));
    expect(create([{ name: "orders", numPartitions: 1, replicationFactor: 1 }])).toEqual([["orders", ErrorCode.TOPIC_ALREADY_EXISTS, -1]]);
  });
});
