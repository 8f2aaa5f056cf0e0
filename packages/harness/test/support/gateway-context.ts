import type { ActorId, Context, Message, Micros, Observation, RequestMessage } from "@kcsim/protocol";
import { topicIdFor } from "@kcsim/protocol";
import type { WireRequestOf } from "@kcsim/wire";
import type { WireClientConfig } from "../../src/wire-clients/wire-client-config.js";
import { WireClientGateway } from "../../src/wire-clients/wire-client-gateway.js";

/** A context that keeps what the gateway sends, closes and observes. */
export class RecordingContext implements Context {
  readonly self = "client:test";
  readonly sent: { to: ActorId; message: Message; connection: string }[] = [];
  readonly closed: { to: ActorId; connection: string }[] = [];
  readonly observed: Observation[] = [];
  now(): Micros {
    return 1_000;
  }
  send(to: ActorId, message: Message, connection = ""): void {
    this.sent.push({ to, message, connection });
  }
  closeConnection(to: ActorId, connection = ""): void {
    this.closed.push({ to, connection });
  }
  configureConnections(): void {}
  setTimer(): void {}
  cancelTimer(): void {}
  hasTimer(): boolean {
    return false;
  }
  random(): number {
    return 0.5;
  }
  observe(event: Observation): void {
    this.observed.push(event);
  }
  readonly storage = { append() {}, readAll: () => [], length: 0 };
  readonly log = { debug() {}, info() {}, warn() {}, error() {} };
}

export const CONFIG: WireClientConfig = {
  nodes: [0, 1, 2].map((nodeId) => ({ nodeId, host: "127.0.0.1", port: 9092 + nodeId, broker: `broker-${nodeId}` })),
  coordinators: ["coordinator-0", "coordinator-1", "coordinator-2"],
  controller: "controller",
  topics: [{ name: "orders", id: topicIdFor("orders") }],
  clusterId: "test",
  autoCreateTopics: true,
  offsetsTopicPartitions: 50,
  records: "fetched",
};

/** A consumer's Fetch of partition 0 of one topic from offset 0, named by `topic` (v4-12) or `topicId` (v13). */
export function fetchOfPartition0(topic: string, topicId: string): WireRequestOf<"Fetch"> {
  return {
    clusterId: null,
    replicaId: -1,
    maxWaitMs: 100,
    minBytes: 1,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        topicId,
        partitions: [
          { partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20 },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: "",
  };
}

/** A gateway with one socket (id 1) to node `node`, what it writes to that socket, and the reasons it closed it. */
export function openGateway(node: number) {
  const ctx = new RecordingContext();
  const gateway = new WireClientGateway(CONFIG, () => ctx, "fetched");
  const written: Uint8Array[] = [];
  const closed: string[] = [];
  gateway.open(1, node, { write: (bytes) => written.push(bytes), close: (reason) => closed.push(reason) });
  return { ctx, gateway, written, closed };
}

/** The last request the gateway sent to a simulated actor. */
export const lastRequest = (ctx: RecordingContext) =>
  ctx.sent[ctx.sent.length - 1] as { to: ActorId; message: RequestMessage; connection: string };
