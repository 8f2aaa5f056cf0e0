import { createServer, type Server, type Socket } from "node:net";
import { ErrorCode } from "@kcsim/protocol";
import {
  type ApiVersionEntry,
  checkProduceRecords,
  FrameSplitter,
  WireError,
  type WireRequest,
  type WireResponseOf,
  WireServerConnection,
  withAssignedOffset,
} from "../../src/index.js";

/**
 * A one-broker Kafka in memory, only good enough for real clients (kcat,
 * KafkaJS) to list metadata, produce, consume and run a one-member classic
 * group against WireServerConnection on a real socket. It is test tooling:
 * its point is that real clients accept this package's responses, and that
 * their request bytes can be captured.
 */
export interface CapturedFrame {
  readonly apiKey: number;
  readonly apiVersion: number;
  /** The frame payload (after the 4-byte size), exactly as the client sent it. */
  readonly payload: Uint8Array;
}

export interface ToyBrokerOptions {
  readonly apiVersions?: readonly ApiVersionEntry[];
  /** Longest wait for an empty Fetch (the client's maxWaitMs, capped). */
  readonly maxFetchWaitMs?: number;
  readonly topics?: Readonly<Record<string, number>>;
}

interface Batch {
  readonly baseOffset: bigint;
  readonly lastOffset: bigint;
  readonly bytes: Uint8Array;
}

export class ToyBroker {
  readonly frames: CapturedFrame[] = [];
  readonly closeReasons: string[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly logs = new Map<string, Batch[]>();
  private readonly topics: Map<string, number>;
  private readonly committed = new Map<string, bigint>();
  private generation = 0;
  private nextMemberId = 1;
  private readonly members = new Map<string, { metadata: Uint8Array; protocol: string }>();
  private assignments = new Map<string, Uint8Array>();
  private nextProducerId = 1000n;
  port = 0;

  constructor(private readonly options: ToyBrokerOptions = {}) {
    this.topics = new Map(Object.entries(options.topics ?? { t: 1 }));
    this.server = createServer((socket) => this.accept(socket));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    const address = this.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    this.port = address.port;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    const tap = new FrameSplitter();
    const connection: WireServerConnection = new WireServerConnection(
      {
        send: (bytes) => {
          if (!socket.destroyed) socket.write(bytes);
        },
        request: (request) => this.handle(request, connection),
        close: (reason) => {
          this.closeReasons.push(reason.message);
          socket.destroy();
        },
      },
      this.options.apiVersions === undefined ? {} : { apiVersions: this.options.apiVersions },
    );
    socket.on("data", (chunk) => {
      try {
        for (const payload of tap.push(chunk)) {
          const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
          if (payload.length >= 4) this.frames.push({ apiKey: view.getInt16(0), apiVersion: view.getInt16(2), payload: payload.slice() });
        }
      } catch {
        // the connection reports the same framing error
      }
      connection.receive(chunk);
    });
  }

  private partitions(topic: string): number | undefined {
    return this.topics.get(topic);
  }

  private log(topic: string, partition: number): Batch[] {
    const key = `${topic}-${partition}`;
    let log = this.logs.get(key);
    if (log === undefined) {
      log = [];
      this.logs.set(key, log);
    }
    return log;
  }

  private endOffset(topic: string, partition: number): bigint {
    const log = this.log(topic, partition);
    return log.length === 0 ? 0n : log[log.length - 1]!.lastOffset + 1n;
  }

  // Each case ends by answering; `return connection.respond(...)` keeps the cases short.
  private handle(request: WireRequest, connection: WireServerConnection): unknown {
    const { header } = request;
    const v = header.apiVersion;
    switch (request.api) {
      case "Metadata": {
        const wanted =
          request.body.topics === null || (v === 0 && request.body.topics.length === 0)
            ? [...this.topics.keys()]
            : request.body.topics.map((t) => t.name);
        for (const name of wanted) if (!this.topics.has(name) && request.body.allowAutoTopicCreation) this.topics.set(name, 1);
        return connection.respond("Metadata", {
          throttleTimeMs: 0,
          brokers: [{ nodeId: 0, host: "127.0.0.1", port: this.port, rack: null }],
          clusterId: "toy-cluster",
          controllerId: 0,
          topics: wanted.map((name) => {
            const count = this.partitions(name);
            return {
              errorCode: count === undefined ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : 0,
              name,
              isInternal: false,
              partitions: Array.from({ length: count ?? 0 }, (_, partitionIndex) => ({
                errorCode: 0,
                partitionIndex,
                leaderId: 0,
                replicaNodes: [0],
                isrNodes: [0],
                offlineReplicas: [],
              })),
            };
          }),
        });
      }
      case "CreateTopics": {
        for (const topic of request.body.topics) this.topics.set(topic.name, Math.max(1, topic.numPartitions));
        return connection.respond("CreateTopics", {
          throttleTimeMs: 0,
          topics: request.body.topics.map((t) => ({ name: t.name, errorCode: 0, errorMessage: null })),
        });
      }
      case "FindCoordinator":
        return connection.respond("FindCoordinator", {
          throttleTimeMs: 0,
          errorCode: 0,
          errorMessage: null,
          nodeId: 0,
          host: "127.0.0.1",
          port: this.port,
        });
      case "InitProducerId":
        return connection.respond("InitProducerId", {
          throttleTimeMs: 0,
          errorCode: 0,
          producerId: this.nextProducerId++,
          producerEpoch: 0,
        });
      case "JoinGroup": {
        const body = request.body;
        if (body.memberId === "" && v >= 4) {
          return connection.respond("JoinGroup", {
            throttleTimeMs: 0,
            errorCode: ErrorCode.MEMBER_ID_REQUIRED,
            generationId: -1,
            protocolName: "",
            leader: "",
            memberId: `member-${this.nextMemberId++}`,
            members: [],
          });
        }
        const memberId = body.memberId === "" ? `member-${this.nextMemberId++}` : body.memberId;
        const protocol = body.protocols[0]!;
        this.members.clear();
        this.members.set(memberId, { metadata: protocol.metadata, protocol: protocol.name });
        this.generation++;
        return connection.respond("JoinGroup", {
          throttleTimeMs: 0,
          errorCode: 0,
          generationId: this.generation,
          protocolName: protocol.name,
          leader: memberId,
          memberId,
          members: [...this.members].map(([id, m]) => ({ memberId: id, groupInstanceId: null, metadata: m.metadata })),
        });
      }
      case "SyncGroup": {
        if (request.body.assignments.length > 0)
          this.assignments = new Map(request.body.assignments.map((a) => [a.memberId, a.assignment]));
        return connection.respond("SyncGroup", {
          throttleTimeMs: 0,
          errorCode: 0,
          assignment: this.assignments.get(request.body.memberId) ?? new Uint8Array(),
        });
      }
      case "Heartbeat":
        return connection.respond("Heartbeat", { throttleTimeMs: 0, errorCode: 0 });
      case "LeaveGroup":
        this.members.clear();
        return connection.respond("LeaveGroup", {
          throttleTimeMs: 0,
          errorCode: 0,
          members: request.body.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: 0 })),
        });
      case "OffsetCommit": {
        const group = request.body.groupId;
        return connection.respond("OffsetCommit", {
          throttleTimeMs: 0,
          topics: request.body.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => {
              this.committed.set(`${group}/${t.name}-${p.partitionIndex}`, p.committedOffset);
              return { partitionIndex: p.partitionIndex, errorCode: 0 };
            }),
          })),
        });
      }
      case "OffsetFetch": {
        const group = request.body.groupId;
        const topics = request.body.topics ?? [];
        return connection.respond("OffsetFetch", {
          throttleTimeMs: 0,
          errorCode: 0,
          topics: topics.map((t) => ({
            name: t.name,
            partitions: t.partitionIndexes.map((partitionIndex) => ({
              partitionIndex,
              committedOffset: this.committed.get(`${group}/${t.name}-${partitionIndex}`) ?? -1n,
              committedLeaderEpoch: -1,
              metadata: "",
              errorCode: 0,
            })),
          })),
        });
      }
      case "ListOffsets":
        return connection.respond("ListOffsets", {
          throttleTimeMs: 0,
          topics: request.body.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => {
              const offset = p.timestamp === -2n ? 0n : this.endOffset(t.name, p.partitionIndex);
              if (v === 0)
                return { partitionIndex: p.partitionIndex, errorCode: 0, oldStyleOffsets: [offset], timestamp: -1n, offset: -1n };
              return { partitionIndex: p.partitionIndex, errorCode: 0, oldStyleOffsets: [], timestamp: -1n, offset };
            }),
          })),
        });
      case "Produce": {
        const response: WireResponseOf<"Produce"> = {
          throttleTimeMs: 0,
          responses: request.body.topicData.map((t) => ({
            name: t.name,
            partitionResponses: t.partitionData.map((p) => {
              const check = checkProduceRecords(v, p.records);
              if (!check.ok)
                return { index: p.index, errorCode: check.errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n };
              const baseOffset = this.endOffset(t.name, p.index);
              const lastOffset = baseOffset + BigInt(check.decoded.batch.lastOffsetDelta);
              this.log(t.name, p.index).push({ baseOffset, lastOffset, bytes: withAssignedOffset(check.decoded.bytes, baseOffset, 0) });
              return { index: p.index, errorCode: 0, baseOffset, logAppendTimeMs: -1n, logStartOffset: 0n };
            }),
          })),
        };
        return connection.respond("Produce", response);
      }
      case "Fetch": {
        const answer = (): void => {
          const responses = request.body.topics.map((t) => ({
            topic: t.topic,
            partitions: t.partitions.map((p) => {
              const batches = this.log(t.topic, p.partition).filter((b) => b.lastOffset >= p.fetchOffset);
              const end = this.endOffset(t.topic, p.partition);
              return {
                partitionIndex: p.partition,
                errorCode: p.fetchOffset > end ? ErrorCode.OFFSET_OUT_OF_RANGE : 0,
                highWatermark: end,
                lastStableOffset: end,
                logStartOffset: 0n,
                abortedTransactions: null,
                preferredReadReplica: -1,
                // Kafka sends empty records, never null: librdkafka 2.0.2 fails on a null MessageSet ("invalid MessageSetSize -1").
                records: Buffer.concat(batches.map((b) => b.bytes)),
              };
            }),
          }));
          connection.respond("Fetch", { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses });
        };
        const hasData = request.body.topics.some((t) => t.partitions.some((p) => this.endOffset(t.topic, p.partition) > p.fetchOffset));
        if (hasData || request.body.maxWaitMs <= 0) return answer();
        setTimeout(answer, Math.min(request.body.maxWaitMs, this.options.maxFetchWaitMs ?? 100));
        return;
      }
      case "ConsumerGroupHeartbeat":
        return connection.close(new WireError("unsupported-version", "the toy broker does not run KIP-848 groups"));
    }
  }
}
