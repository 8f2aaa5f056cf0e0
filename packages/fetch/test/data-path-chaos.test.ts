import { type Message, ms, type ProduceRequest, type RecordBatch, seconds, tpKey } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BrokerActor } from "../src/broker/broker-actor.js";
import type { ControllerActor } from "../src/controller/controller-actor.js";
import { addProducer, brokerId, type ClusterSpec, cluster } from "./data-path-fixtures.js";
import type { SimNetwork } from "./sim-network.js";

const SPEC: ClusterSpec = {
  brokers: 3,
  topics: [{ name: "t", partitions: 2, replicationFactor: 3 }],
  broker: {
    "replica.lag.time.max.ms": 2000,
    "broker.session.timeout.ms": 3000,
    "broker.heartbeat.interval.ms": 500,
    "min.insync.replicas": 2,
    "replica.socket.timeout.ms": 2000,
    "controller.socket.timeout.ms": 2000,
  },
};

/** A broker down for a while (crashes may overlap), a restart of the controller, or a window where every third message is lost. */
type Fault =
  | { readonly atMs: number; readonly kind: "crash"; readonly broker: number; readonly downMs: number }
  | { readonly atMs: number; readonly kind: "controller-restart" }
  | { readonly atMs: number; readonly kind: "lossy"; readonly lengthMs: number };

const atMs = fc.integer({ min: 200, max: 5000 });
const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  fc.record({
    atMs,
    kind: fc.constant("crash" as const),
    broker: fc.integer({ min: 0, max: 2 }),
    downMs: fc.integer({ min: 100, max: 5000 }),
  }),
  fc.record({ atMs, kind: fc.constant("controller-restart" as const) }),
  fc.record({ atMs, kind: fc.constant("lossy" as const), lengthMs: fc.integer({ min: 100, max: 2000 }) }),
);

/** Acknowledged records by partition and offset, read off the wire. */
function trackAcknowledged(net: SimNetwork): Map<string, Map<number, string>> {
  const sent = new Map<string, ProduceRequest>();
  const acknowledged = new Map<string, Map<number, string>>();
  net.onDeliver = (from: string, to: string, message: Message) => {
    if (message.type === "ProduceRequest") sent.set(`${from}/${message.correlationId}`, message);
    if (message.type !== "ProduceResponse") return;
    const request = sent.get(`${to}/${message.correlationId}`);
    for (const topic of message.responses) {
      for (const p of topic.partitionResponses) {
        if (p.errorCode !== 0) continue;
        const batch = request?.topicData.find((t) => t.name === topic.name)?.partitionData.find((d) => d.index === p.index)?.records;
        const byOffset = acknowledged.get(tpKey(topic.name, p.index)) ?? new Map<number, string>();
        for (const record of batch?.records ?? []) byOffset.set(p.baseOffset + record.offsetDelta, record.value ?? "");
        acknowledged.set(tpKey(topic.name, p.index), byOffset);
      }
    }
  };
  return acknowledged;
}

function values(batches: readonly RecordBatch[], below: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const batch of batches)
    for (const r of batch.records) if (batch.baseOffset + r.offsetDelta < below) out.set(batch.baseOffset + r.offsetDelta, r.value ?? "");
  return out;
}

describe("data path under faults", () => {
  it("loses no acks=all record and converges the replicas, whatever brokers or the controller crash and messages are lost", () => {
    fc.assert(
      fc.property(fc.array(faultArb, { maxLength: 5 }), fc.integer({ min: 1, max: 1_000_000 }), (faults, seed) => {
        const net = cluster({ ...SPEC, seed });
        addProducer(
          net,
          "producer-1",
          SPEC,
          { acks: "all", "linger.ms": 20, "request.timeout.ms": 1000, "delivery.timeout.ms": 60000 },
          {
            topic: "t",
            recordsPerSecond: 40,
            keys: null,
            valueBytes: { dist: "fixed", bytes: 50 },
            stopAtMs: 6000,
          },
        );
        const acknowledged = trackAcknowledged(net);
        let lossyUntil = 0;
        let counter = 0;
        net.dropIf = () => net.now < lossyUntil && ++counter % 3 === 0;
        net.startAll();
        // Brokers come back when their time is up, checked at each fault and at the end.
        const backAt = new Map<number, number>();
        const restartDue = (now: number) => {
          for (const [b, at] of backAt) {
            if (at > now) continue;
            backAt.delete(b);
            net.start(brokerId(b));
          }
        };
        for (const fault of [...faults].sort((a, b) => a.atMs - b.atMs)) {
          net.runUntil(ms(fault.atMs));
          restartDue(fault.atMs);
          if (fault.kind === "lossy") lossyUntil = ms(fault.atMs + fault.lengthMs);
          else if (fault.kind === "controller-restart") net.restart("controller");
          else if (!backAt.has(fault.broker)) {
            net.crash(brokerId(fault.broker));
            backAt.set(fault.broker, fault.atMs + fault.downMs);
          }
        }
        for (const at of [...backAt.values()].sort((a, b) => a - b)) {
          net.runUntil(Math.max(net.now, ms(at)));
          restartDue(at);
        }
        // Healed: give sessions, request timeouts and catch-up time to settle.
        net.runUntil(Math.max(net.now, seconds(12)) + seconds(12));

        const acks = net.observed("producer.ack");
        expect(acks.every((a) => a.event.errorCode === 0)).toBe(true);
        const controller = net.actor<ControllerActor>("controller");
        for (let p = 0; p < 2; p++) {
          const registration = controller.partition("t", p);
          expect([...(registration?.isr ?? [])].sort()).toEqual([0, 1, 2]);
          const leader = net.actor<BrokerActor>(brokerId(registration?.leader ?? -1)).replicaManager.partition("t", p);
          const hw = leader?.log.highWatermark ?? 0;
          const log = values(leader?.log.batches() ?? [], hw);
          for (const [offset, value] of acknowledged.get(tpKey("t", p)) ?? new Map()) expect(log.get(offset)).toBe(value);
          for (let b = 0; b < 3; b++) {
            const replica = net.actor<BrokerActor>(brokerId(b)).replicaManager.partition("t", p);
            expect(replica?.log.highWatermark).toBe(hw);
            expect(values(replica?.log.batches() ?? [], hw)).toEqual(log);
          }
        }
      }),
      { numRuns: 10, seed: 42 },
    );
  });
});
