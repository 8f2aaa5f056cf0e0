import { ErrorCode, ms, seconds } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { answer, type ClusterSpec, cluster, fetchRequest, partitionOn, produceRequest, producerBatch } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";

/** Three brokers, one partition replicated on all of them; broker-0 leads. */
const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 1, replicationFactor: 3 }],
  broker: { "replica.lag.time.max.ms": 2000, "broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500 },
};

function started(spec: ClusterSpec = SPEC): SimNetwork {
  const net = cluster(spec);
  net.addClient("client");
  net.startAll();
  net.runFor(ms(20));
  return net;
}

function produceAndWait(net: SimNetwork, acks: number, size = 100, to = "broker-0", timeoutMs = 30_000) {
  const request = produceRequest("t", 0, producerBatch(size), acks, timeoutMs);
  net.send("client", to, request);
  const sentAt = net.now;
  net.runUntilTrue(() => answer(net, "ProduceResponse", request.correlationId) !== undefined, seconds(60));
  const delivered = net.received("ProduceResponse", request.correlationId)[0];
  return { at: (delivered?.at ?? 0) - sentAt, partition: delivered?.message.responses[0]?.partitionResponses[0] };
}

describe("replication", () => {
  it("acks=all answers once every ISR member has the batch; followers reach the leader's high watermark", () => {
    const net = started();
    const acksAll = produceAndWait(net, -1);
    expect(acksAll.partition).toMatchObject({ errorCode: 0, baseOffset: 0 });
    // The followers' parked fetches wake on the append, they fetch again at the new end, and only then does the HW move.
    expect(acksAll.at).toBeGreaterThanOrEqual(ms(4));
    expect(acksAll.at).toBeLessThan(ms(20));
    expect(partitionOn(net, "broker-0", "t", 0)).toMatchObject({ role: "leader", highWatermark: 1, logEndOffset: 1, isr: [0, 1, 2] });

    const acksOne = produceAndWait(net, 1);
    expect(acksOne.partition).toMatchObject({ errorCode: 0, baseOffset: 1 });
    expect(acksOne.at).toBe(ms(2));
    net.runFor(seconds(1));
    for (const broker of ["broker-1", "broker-2"]) {
      expect(partitionOn(net, broker, "t", 0)).toMatchObject({ role: "follower", logEndOffset: 2, highWatermark: 2 });
    }
    const hw = net.observed("broker.hw").map((o) => o.event.highWatermark);
    expect(hw).toEqual([1, 2]);
  });

  it("shrinks the ISR after replica.lag.time.max.ms, then acks=all needs only the rest; NOT_ENOUGH_REPLICAS below min.insync.replicas", () => {
    const net = started({ ...SPEC, broker: { ...SPEC.broker, "min.insync.replicas": 2 } });
    produceAndWait(net, -1);
    // broker-2's fetches are lost (its heartbeats still reach the controller, so it is not fenced).
    net.dropIf = (from, _to, message) => from === "broker-2" && message.type === "FetchRequest";
    const cutAt = net.now;
    const slow = produceAndWait(net, -1);
    expect(slow.partition?.errorCode).toBe(0);
    // Held until the ISR dropped broker-2: after the lag time, within one more check period (lag / 2) and the AlterPartition round trip.
    expect(slow.at).toBeGreaterThan(ms(2000));
    expect(slow.at).toBeLessThan(ms(3100));
    const shrink = net.observed("controller.partition").find((o) => o.event.reason === "AlterPartition from broker 0");
    expect(shrink?.event).toMatchObject({ isr: [0, 1], leader: 0, leaderEpoch: 0 });
    expect((shrink?.at ?? 0) - cutAt).toBeGreaterThan(ms(2000));

    // broker-1 goes too. A follower at the leader's log end counts as caught up, so it leaves the ISR only once
    // the leader has something it lacks; then the ISR is the leader alone, below min.insync.replicas = 2.
    net.dropIf = (from, _to, message) => (from === "broker-2" || from === "broker-1") && message.type === "FetchRequest";
    net.runFor(seconds(4));
    expect(partitionOn(net, "broker-0", "t", 0)?.isr).toEqual([0, 1]);
    expect(produceAndWait(net, 1).partition?.errorCode).toBe(ErrorCode.NONE);
    net.runFor(seconds(4));
    expect(partitionOn(net, "broker-0", "t", 0)?.isr).toEqual([0]);
    expect(produceAndWait(net, -1).partition?.errorCode).toBe(ErrorCode.NOT_ENOUGH_REPLICAS);
    // The high watermark does not move below min.insync.replicas (KIP-966): acks=1 writes wait to become visible.
    expect(partitionOn(net, "broker-0", "t", 0)).toMatchObject({ logEndOffset: 3, highWatermark: 2 });

    // Healed, the followers catch up and are added back, once their lost fetches time out (replica.socket.timeout.ms).
    net.dropIf = null;
    net.runFor(seconds(31));
    const healed = partitionOn(net, "broker-0", "t", 0);
    expect([...(healed?.isr ?? [])].sort()).toEqual([0, 1, 2]);
    expect(healed?.highWatermark).toBe(3);
    expect(partitionOn(net, "broker-2", "t", 0)).toMatchObject({ logEndOffset: 3, highWatermark: 3 });
  });

  it("a request times out with REQUEST_TIMED_OUT when the ISR does not catch up in time", () => {
    const net = started();
    net.dropIf = (from, _to, message) => from === "broker-2" && message.type === "FetchRequest";
    const timedOut = produceAndWait(net, -1, 100, "broker-0", 500);
    expect(timedOut.partition?.errorCode).toBe(ErrorCode.REQUEST_TIMED_OUT);
    expect(timedOut.at).toBe(ms(502));
  });

  it("after a leadership move the old leader answers NOT_LEADER_OR_FOLLOWER / FENCED_LEADER_EPOCH and the new one serves", () => {
    const net = started();
    produceAndWait(net, -1);
    net.control("controller", { command: "move-leader", topic: "t", partition: 0, to: 1 });
    net.runFor(ms(20));
    expect(partitionOn(net, "broker-1", "t", 0)).toMatchObject({ role: "leader", leaderEpoch: 1 });
    expect(partitionOn(net, "broker-0", "t", 0)).toMatchObject({ role: "follower", leaderEpoch: 1 });

    const fetchAt = (to: string, currentLeaderEpoch: number) => {
      const request = fetchRequest([{ topic: "t", partition: 0, fetchOffset: 0, currentLeaderEpoch }]);
      net.send("client", to, request);
      net.runFor(ms(3));
      return answer(net, "FetchResponse", request.correlationId)?.responses[0]?.partitions[0];
    };
    expect(fetchAt("broker-0", -1)?.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(fetchAt("broker-0", 1)?.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(fetchAt("broker-0", 0)?.errorCode).toBe(ErrorCode.FENCED_LEADER_EPOCH);
    expect(fetchAt("broker-1", 2)?.errorCode).toBe(ErrorCode.UNKNOWN_LEADER_EPOCH);
    expect(fetchAt("broker-1", 1)).toMatchObject({ errorCode: 0, highWatermark: 1 });
    expect(produceAndWait(net, 1, 100, "broker-0").partition?.errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(produceAndWait(net, -1, 100, "broker-1").partition).toMatchObject({ errorCode: 0, baseOffset: 1 });
    const roles = net.observed("broker.role").filter((o) => o.event.leaderEpoch === 1);
    expect(roles.map((o) => [o.actor, o.event.role]).sort()).toEqual([
      ["broker-0", "follower"],
      ["broker-1", "leader"],
      ["broker-2", "follower"],
    ]);
  });

  it("a follower that diverged truncates to the new leader's log by leader epoch", () => {
    const net = started();
    produceAndWait(net, -1);
    // broker-0 (leader) is cut off from everyone but the client: its acks=1 writes reach no follower.
    net.dropIf = (from, to) => (from === "broker-0" && to !== "client") || (to === "broker-0" && from !== "client");
    produceAndWait(net, 1);
    produceAndWait(net, 1);
    expect(partitionOn(net, "broker-0", "t", 0)?.logEndOffset).toBe(3);
    // The controller fences broker-0 and elects broker-1, which takes new writes.
    net.runFor(seconds(4));
    expect(partitionOn(net, "broker-1", "t", 0)).toMatchObject({ role: "leader", leaderEpoch: 1 });
    expect(produceAndWait(net, -1, 30, "broker-1").partition).toMatchObject({ errorCode: 0, baseOffset: 1 });
    net.dropIf = null;
    net.runFor(seconds(3));
    const truncate = net.observed("broker.truncate").find((o) => o.actor === "broker-0");
    expect(truncate?.event).toMatchObject({ offset: 1, previousEndOffset: 3 });
    const logs = ["broker-0", "broker-1", "broker-2"].map((b) => partitionOn(net, b, "t", 0));
    expect(logs.map((p) => [p?.role, p?.logEndOffset, p?.highWatermark])).toEqual([
      ["follower", 2, 2],
      ["leader", 2, 2],
      ["follower", 2, 2],
    ]);
    // broker-0 rejoined the ISR through the leader's AlterPartition after it was unfenced.
    expect(logs[1]?.isr).toEqual([1, 2, 0]);
  });
});
