import { createHash, randomUUID } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { ErrorCode } from "@kcsim/protocol";
import { batchedFindCoordinatorResponse } from "../../src/apis/find-coordinator.js";
import {
  type ApiVersionEntry,
  AUTHORIZED_OPERATIONS_OMITTED,
  checkProduceRecords,
  FrameSplitter,
  type WireRequest,
  type WireResponseOf,
  WireServerConnection,
  withAssignedOffset,
  ZERO_UUID,
} from "../../src/index.js";

/**
 * A one-broker Kafka in memory, only good enough for real clients (kcat,
 * KafkaJS, @platformatic/kafka) to list metadata, produce, consume and run a
 * one-member group (classic, or KIP-848's consumer protocol with every
 * partition of the subscribed topics assigned to the one member) against
 * WireServerConnection on a real socket. It is test tooling: its point is
 * that real clients accept this package's responses, and that their request
 * bytes can be captured.
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
  /** Answer this many OffsetCommit requests COORDINATOR_NOT_AVAILABLE (a retriable error) before accepting any. */
  readonly failOffsetCommits?: number;
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
  /** Every OffsetCommit, in arrival order: each partition's offset and the error it was answered. */
  readonly offsetCommits: { group: string; topic: string; partition: number; offset: bigint; errorCode: number }[] = [];
  private generation = 0;
  private nextMemberId = 1;
  private readonly members = new Map<string, { metadata: Uint8Array; protocol: string }>();
  private assignments = new Map<string, Uint8Array>();
  private nextProducerId = 1000n;
  /** The KIP-848 group's one member: its id, epoch and subscription (as last sent). */
  private consumerMember: { memberId: string; epoch: number; topics: string[] } | undefined;
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

  /** A topic's id: a Kafka Uuid derived from its name, so every run gives the same one. */
  topicId(topic: string): string {
    return createHash("sha256").update(topic).digest().subarray(0, 16).toString("base64url");
  }

  private topicNamed(id: string): string | undefined {
    return [...this.topics.keys()].find((name) => this.topicId(name) === id);
  }

  /** The consumer group member's assignment: every partition of each subscribed topic that exists. */
  private consumerAssignment(topics: readonly string[]): { topicPartitions: { topicId: string; partitions: number[] }[] } {
    const topicPartitions = topics.flatMap((name) => {
      const count = this.partitions(name);
      return count === undefined ? [] : [{ topicId: this.topicId(name), partitions: Array.from({ length: count }, (_, i) => i) }];
    });
    return { topicPartitions };
  }

  /**
   * The topic a Fetch names: by name up to v12, by its id (Uuid) from v13, where an id this broker does not know
   * names no topic (undefined: answered UNKNOWN_TOPIC_ID, as Kafka does). @platformatic/kafka 1.35.0 at Fetch v12
   * names a topic by its id in UUID text form (dist/apis/consumer/fetch-v12.js writes the consumer's topicId, which
   * Metadata v10+ gave as 8-4-4-4-12 hex, as the compact-string topic name) and matches the answer by that string;
   * real brokers never see it, as the client picks v13 (topic ids) there; this broker resolves it.
   */
  private fetchedTopic(version: number, topic: { topic: string; topicId: string }): string | undefined {
    if (version >= 13) return this.topicNamed(topic.topicId);
    const named = topic.topic;
    if (this.topics.has(named) || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(named)) return named;
    const hex = named.replaceAll("-", "");
    return [...this.topics.keys()].find((name) => Buffer.from(this.topicId(name), "base64url").toString("hex") === hex) ?? named;
  }

  private offsetCommitsFailed = 0;

  /** The offset a group has committed for a partition (-1 if none). */
  committedOffset(group: string, topic: string, partition: number): bigint {
    return this.committed.get(`${group}/${topic}-${partition}`) ?? -1n;
  }

  /** The topics a group has commits for (OffsetFetch with a null topic list asks for all of them). */
  private committedTopics(group: string): { name: string; partitionIndexes: number[] }[] {
    const topics = new Map<string, number[]>();
    for (const key of this.committed.keys()) {
      if (!key.startsWith(`${group}/`)) continue;
      const rest = key.slice(group.length + 1);
      const dash = rest.lastIndexOf("-");
      const name = rest.slice(0, dash);
      topics.set(name, [...(topics.get(name) ?? []), Number(rest.slice(dash + 1))]);
    }
    return [...topics].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
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
        // From v10 a topic may be named by id alone (name null); an unknown id is answered UNKNOWN_TOPIC_ID with a null name (v12+).
        const wanted: { name: string | null; id?: string }[] =
          request.body.topics === null || (v === 0 && request.body.topics.length === 0)
            ? [...this.topics.keys()].map((name) => ({ name }))
            : request.body.topics.map((t) =>
                t.name === null ? { name: this.topicNamed(t.topicId) ?? null, id: t.topicId } : { name: t.name },
              );
        for (const { name } of wanted)
          if (name !== null && !this.topics.has(name) && request.body.allowAutoTopicCreation) this.topics.set(name, 1);
        return connection.respond("Metadata", {
          throttleTimeMs: 0,
          brokers: [{ nodeId: 0, host: "127.0.0.1", port: this.port, rack: null }],
          clusterId: "toy-cluster",
          controllerId: 0,
          topics: wanted.map(({ name, id }) => {
            const count = name === null ? undefined : this.partitions(name);
            return {
              errorCode: count !== undefined ? 0 : name === null ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
              name: name ?? (v >= 12 ? null : ""),
              topicId: name === null ? (id ?? ZERO_UUID) : count === undefined ? ZERO_UUID : this.topicId(name),
              isInternal: false,
              partitions: Array.from({ length: count ?? 0 }, (_, partitionIndex) => ({
                errorCode: 0,
                partitionIndex,
                leaderId: 0,
                leaderEpoch: 0,
                replicaNodes: [0],
                isrNodes: [0],
                offlineReplicas: [],
              })),
              topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
            };
          }),
          clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
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
        // v4+ answers one coordinator per key; the single-key fields stay at their defaults.
        if (v >= 4) {
          return connection.respond(
            "FindCoordinator",
            batchedFindCoordinatorResponse(
              request.body.coordinatorKeys.map((key) => ({
                key,
                nodeId: 0,
                host: "127.0.0.1",
                port: this.port,
                errorCode: 0,
                errorMessage: null,
              })),
            ),
          );
        }
        return connection.respond("FindCoordinator", {
          throttleTimeMs: 0,
          errorCode: 0,
          errorMessage: null,
          nodeId: 0,
          host: "127.0.0.1",
          port: this.port,
          coordinators: [],
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
        const fails = this.offsetCommitsFailed < (this.options.failOffsetCommits ?? 0);
        if (fails) this.offsetCommitsFailed++;
        const errorCode = fails ? 15 : 0; // COORDINATOR_NOT_AVAILABLE
        return connection.respond("OffsetCommit", {
          throttleTimeMs: 0,
          topics: request.body.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => {
              this.offsetCommits.push({ group, topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, errorCode });
              if (!fails) this.committed.set(`${group}/${t.name}-${p.partitionIndex}`, p.committedOffset);
              return { partitionIndex: p.partitionIndex, errorCode };
            }),
          })),
        });
      }
      case "OffsetFetch": {
        const answer = (group: string, topics: readonly { name: string; partitionIndexes: number[] }[]) =>
          topics.map((t) => ({
            name: t.name,
            partitions: t.partitionIndexes.map((partitionIndex) => ({
              partitionIndex,
              committedOffset: this.committedOffset(group, t.name, partitionIndex),
              committedLeaderEpoch: -1,
              metadata: "",
              errorCode: 0,
            })),
          }));
        // v8+ asks for several groups at once, each answered with its own error.
        return connection.respond("OffsetFetch", {
          throttleTimeMs: 0,
          errorCode: 0,
          topics: v >= 8 ? [] : answer(request.body.groupId, request.body.topics ?? []),
          groups: request.body.groups.map((g) => ({
            groupId: g.groupId,
            topics: answer(g.groupId, g.topics ?? this.committedTopics(g.groupId)),
            errorCode: 0,
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
                return {
                  partitionIndex: p.partitionIndex,
                  errorCode: 0,
                  oldStyleOffsets: [offset],
                  timestamp: -1n,
                  offset: -1n,
                  leaderEpoch: -1,
                };
              // The leader epoch (v4+) is the one Metadata v7+ gives.
              return {
                partitionIndex: p.partitionIndex,
                errorCode: 0,
                oldStyleOffsets: [],
                timestamp: -1n,
                offset,
                leaderEpoch: v >= 4 ? 0 : -1,
              };
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
        // The topic as named (v12-) or by id (v13+), and the topic it means (see fetchedTopic); the answer echoes
        // the name and the id (each written only at the versions that have it).
        const topics = request.body.topics.map((t) => ({ ...t, name: this.fetchedTopic(v, t) }));
        const answer = (): void => {
          const responses = topics.map(({ topic, topicId, name, partitions }) => ({
            topic,
            topicId,
            partitions: partitions.map((p) => {
              // An unknown topic id: Kafka's FetchResponse.partitionResponse(UNKNOWN_TOPIC_ID), every offset -1.
              if (name === undefined)
                return {
                  partitionIndex: p.partition,
                  errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
                  highWatermark: -1n,
                  lastStableOffset: -1n,
                  logStartOffset: -1n,
                  divergingEpoch: { epoch: -1, endOffset: -1n },
                  currentLeader: { leaderId: -1, leaderEpoch: -1 },
                  snapshotId: { endOffset: -1n, epoch: -1 },
                  abortedTransactions: null,
                  preferredReadReplica: -1,
                  records: new Uint8Array(0),
                };
              const batches = this.log(name, p.partition).filter((b) => b.lastOffset >= p.fetchOffset);
              const end = this.endOffset(name, p.partition);
              return {
                partitionIndex: p.partition,
                errorCode: p.fetchOffset > end ? ErrorCode.OFFSET_OUT_OF_RANGE : 0,
                highWatermark: end,
                lastStableOffset: end,
                logStartOffset: 0n,
                divergingEpoch: { epoch: -1, endOffset: -1n },
                currentLeader: { leaderId: -1, leaderEpoch: -1 },
                snapshotId: { endOffset: -1n, epoch: -1 },
                abortedTransactions: null,
                preferredReadReplica: -1,
                // Kafka sends empty records, never null: librdkafka 2.0.2 fails on a null MessageSet ("invalid MessageSetSize -1").
                records: Buffer.concat(batches.map((b) => b.bytes)),
              };
            }),
          }));
          connection.respond("Fetch", { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses });
        };
        const hasData = topics.some(
          ({ name, partitions }) => name === undefined || partitions.some((p) => this.endOffset(name, p.partition) > p.fetchOffset),
        );
        if (hasData || request.body.maxWaitMs <= 0) return answer();
        setTimeout(answer, Math.min(request.body.maxWaitMs, this.options.maxFetchWaitMs ?? 100));
        return;
      }
      case "ConsumerGroupHeartbeat": {
        // One member (the last to join), every partition of its subscription assigned to it at once. Epoch 0 joins
        // (v0: the broker names the member; v1: the member does), -1 leaves; the assignment is sent when it changes.
        const body = request.body;
        if (body.memberEpoch === -1) {
          if (this.consumerMember?.memberId === body.memberId) this.consumerMember = undefined;
          return connection.respond("ConsumerGroupHeartbeat", {
            throttleTimeMs: 0,
            errorCode: 0,
            errorMessage: null,
            memberId: body.memberId,
            memberEpoch: -1,
            heartbeatIntervalMs: 0,
            assignment: null,
          });
        }
        let member = this.consumerMember;
        let changed = false;
        if (body.memberEpoch === 0 || member === undefined || member.memberId !== body.memberId) {
          member = { memberId: body.memberId === "" ? randomUUID() : body.memberId, epoch: (member?.epoch ?? 0) + 1, topics: [] };
          this.consumerMember = member;
          changed = true;
        }
        if (body.subscribedTopicNames !== null && body.subscribedTopicNames.join() !== member.topics.join()) {
          member.topics = [...body.subscribedTopicNames];
          if (!changed) member.epoch++;
          changed = true;
        }
        return connection.respond("ConsumerGroupHeartbeat", {
          throttleTimeMs: 0,
          errorCode: 0,
          errorMessage: null,
          memberId: member.memberId,
          memberEpoch: member.epoch,
          heartbeatIntervalMs: 500,
          assignment: changed ? this.consumerAssignment(member.topics) : null,
        });
      }
    }
  }
}
