import {
  type Actor,
  type ActorId,
  type AddOffsetsToTxnRequest,
  type AddPartitionsToTxnRequest,
  type EndTxnRequest,
  ErrorCode,
  type InitProducerIdRequest,
  type JsonValue,
  type Message,
  type MetadataRequest,
  type MetadataResponse,
  type Micros,
  ms,
  type Observation,
  type OffsetFetchRequest,
  type TxnOffsetCommitRequest,
  type WriteTxnMarkersRequest,
  type WriteTxnMarkersResponse,
} from "@kcsim/protocol";
import { createTransactionCoordinator } from "../src/index.js";
import { type CoordinatorUnderTest, FakeContext, FakeDurableLog } from "./coordinator-test-kit.js";

export const TXN_COORDINATOR = "txn-coordinator-0";
export const BROKERS = ["broker-0", "broker-1"] as const;
export const GROUP_COORDINATOR = "coordinator-0";
export const OUT = { name: "out", partitions: 4 };
export const TRANSACTIONAL_ID = "txn-a";

export interface TxnConfigOptions {
  readonly broker?: Record<string, JsonValue>;
  readonly txnCoordinators?: readonly string[];
  readonly groupCoordinators?: readonly string[];
  /** null: the default load time. */
  readonly loadMs?: number | null;
}

/** A transaction coordinator config: topic "out" (4 partitions), two brokers, one group coordinator, no load time unless asked. */
export function txnConfig(options: TxnConfigOptions = {}): JsonValue {
  return {
    broker: { ...(options.broker ?? {}) },
    txnCoordinators: [...(options.txnCoordinators ?? [TXN_COORDINATOR])],
    brokers: [...BROKERS],
    groupCoordinators: [...(options.groupCoordinators ?? [GROUP_COORDINATOR])],
    topics: [{ ...OUT }],
    ...(options.loadMs === null ? {} : { loadMs: options.loadMs ?? 0 }),
  };
}

let correlation = 70_000;

export function initProducerId(fields: Partial<InitProducerIdRequest> = {}): InitProducerIdRequest {
  return {
    type: "InitProducerIdRequest",
    correlationId: ++correlation,
    apiVersion: 4,
    clientId: "producer",
    transactionalId: TRANSACTIONAL_ID,
    transactionTimeoutMs: 60_000,
    producerId: -1,
    producerEpoch: -1,
    ...fields,
  };
}

export interface ProducerIdAndEpoch {
  readonly producerId: number;
  readonly producerEpoch: number;
}

export function addPartitions(
  producer: ProducerIdAndEpoch,
  partitions: Record<string, number[]>,
  transactionalId = TRANSACTIONAL_ID,
): AddPartitionsToTxnRequest {
  return {
    type: "AddPartitionsToTxnRequest",
    correlationId: ++correlation,
    apiVersion: 3,
    clientId: "producer",
    transactionalId,
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    topics: Object.entries(partitions).map(([name, list]) => ({ name, partitions: [...list] })),
  };
}

export function addOffsets(producer: ProducerIdAndEpoch, groupId = "g", transactionalId = TRANSACTIONAL_ID): AddOffsetsToTxnRequest {
  return {
    type: "AddOffsetsToTxnRequest",
    correlationId: ++correlation,
    apiVersion: 3,
    clientId: "producer",
    transactionalId,
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    groupId,
  };
}

export function endTxn(producer: ProducerIdAndEpoch, committed: boolean, transactionalId = TRANSACTIONAL_ID): EndTxnRequest {
  return {
    type: "EndTxnRequest",
    correlationId: ++correlation,
    apiVersion: 3,
    clientId: "producer",
    transactionalId,
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    committed,
  };
}

export interface TxnCommitFields {
  readonly producer: ProducerIdAndEpoch;
  readonly memberId?: string;
  readonly generationId?: number;
  readonly groupInstanceId?: string | null;
  readonly groupId?: string;
  /** T1 partition -> offset. */
  readonly offsets?: Record<number, number>;
}

export function txnOffsetCommit(fields: TxnCommitFields): TxnOffsetCommitRequest {
  return {
    type: "TxnOffsetCommitRequest",
    correlationId: ++correlation,
    apiVersion: 3,
    clientId: "producer",
    transactionalId: TRANSACTIONAL_ID,
    groupId: fields.groupId ?? "g",
    producerId: fields.producer.producerId,
    producerEpoch: fields.producer.producerEpoch,
    generationId: fields.generationId ?? -1,
    memberId: fields.memberId ?? "",
    groupInstanceId: fields.groupInstanceId ?? null,
    topics: [
      {
        name: "T1",
        partitions: Object.entries(fields.offsets ?? { 0: 10 }).map(([partition, offset]) => ({
          partitionIndex: Number(partition),
          committedOffset: offset,
          committedLeaderEpoch: -1,
          committedMetadata: null,
        })),
      },
    ],
  };
}

export function offsetFetch(requireStable: boolean, partitions: readonly number[] = [0], groupId = "g"): OffsetFetchRequest {
  return {
    type: "OffsetFetchRequest",
    correlationId: ++correlation,
    apiVersion: 9,
    clientId: "client",
    requireStable,
    groups: [{ groupId, memberId: null, memberEpoch: -1, topics: [{ name: "T1", partitionIndexes: [...partitions] }] }],
  };
}

export function writeTxnMarkers(markers: WriteTxnMarkersRequest["markers"]): WriteTxnMarkersRequest {
  return { type: "WriteTxnMarkersRequest", correlationId: ++correlation, apiVersion: 1, clientId: TXN_COORDINATOR, markers };
}

/** One marker entry for `__consumer_offsets` partitions (of a transaction before transaction version 2 unless told). */
export function offsetsMarker(
  producer: ProducerIdAndEpoch,
  committed: boolean,
  partitions: readonly number[],
  coordinatorEpoch = 0,
  transactionVersion = 0,
): WriteTxnMarkersRequest["markers"][number] {
  return {
    producerId: producer.producerId,
    producerEpoch: producer.producerEpoch,
    transactionResult: committed,
    topics: [{ name: "__consumer_offsets", partitionIndexes: [...partitions] }],
    coordinatorEpoch,
    transactionVersion,
  };
}

/** The answer every partition of a WriteTxnMarkers gets from a fake broker (0 = written). */
export type MarkerAnswer = (topic: string, partition: number, marker: WriteTxnMarkersRequest["markers"][number]) => number | null;

/**
 * A transaction coordinator on a fake context, with fake data brokers
 * (broker-0 leads even partitions of "out", broker-1 odd ones) that answer
 * Metadata and WriteTxnMarkers as `markerAnswer` says (null: no answer), and
 * optionally a real group coordinator that gets the markers of
 * `__consumer_offsets` partitions. `pump` delivers everything in flight.
 */
export class TxnCoordinatorUnderTest {
  actor: Actor;
  ctx: FakeContext;
  readonly storage: FakeDurableLog;
  /** Index of the first message of ctx.sent not yet delivered. */
  #delivered = 0;
  /** Messages the coordinator sent to the brokers, in order. */
  readonly brokerRequests: { to: ActorId; message: Message }[] = [];
  markerAnswer: MarkerAnswer = () => ErrorCode.NONE;
  /** Brokers that are down: they answer with SimDisconnect. */
  readonly downBrokers = new Set<string>();
  /** Partition -> leader override (default: broker-(partition mod 2)). */
  readonly leaders = new Map<number, string>();

  constructor(
    readonly config: JsonValue = txnConfig(),
    readonly groupCoordinator: CoordinatorUnderTest | null = null,
    storage = new FakeDurableLog(),
    readonly id: ActorId = TXN_COORDINATOR,
  ) {
    this.storage = storage;
    this.ctx = new FakeContext(id, storage);
    this.actor = createTransactionCoordinator(id, config);
    this.actor.start(this.ctx);
  }

  /** Crashes the actor (volatile state, timers, messages in flight lost) and starts a fresh one on the same log. */
  restart(): void {
    const time = this.ctx.time;
    this.ctx = new FakeContext(this.id, this.storage, time);
    this.#delivered = 0;
    this.actor = createTransactionCoordinator(this.id, this.config);
    this.actor.start(this.ctx);
  }

  /** Sends a client request and returns the direct answer (delivering whatever the coordinator sends meanwhile). */
  request<T extends Message>(message: Message & { correlationId: number }, from: ActorId = "producer"): T {
    this.actor.receive(from, message, this.ctx);
    const response = this.responseTo<T>(message.correlationId);
    this.pump();
    if (response === undefined) throw new Error(`no answer to ${message.type} ${message.correlationId}`);
    return response;
  }

  responseTo<T extends Message>(correlationId: number, to: ActorId = "producer"): T | undefined {
    for (let i = this.ctx.sent.length - 1; i >= 0; i--) {
      const sent = this.ctx.sent[i];
      const message = sent?.message as Message & { correlationId?: number };
      if (sent?.to === to && message.correlationId === correlationId && !message.type.endsWith("Request")) return message as T;
    }
    return undefined;
  }

  /** Delivers the coordinator's messages to the fake brokers and the group coordinator, and their answers back, until quiet. */
  pump(): void {
    for (let rounds = 0; rounds < 1000; rounds++) {
      let progressed = false;
      while (this.#delivered < this.ctx.sent.length) {
        const sent = this.ctx.sent[this.#delivered++];
        if (sent === undefined) break;
        progressed = true;
        this.#route(sent.to, sent.message);
      }
      if (this.groupCoordinator !== null) {
        if (this.#gcCtx !== this.groupCoordinator.ctx) {
          this.#gcCtx = this.groupCoordinator.ctx;
          this.#gcDelivered = 0;
        }
        const gcSent = this.groupCoordinator.ctx.sent;
        while (this.#gcDelivered < gcSent.length) {
          const sent = gcSent[this.#gcDelivered++];
          if (sent === undefined) break;
          if (sent.to !== this.id) continue;
          progressed = true;
          this.actor.receive(GROUP_COORDINATOR, sent.message, this.ctx);
        }
      }
      if (!progressed) return;
    }
    throw new Error("the pump did not settle");
  }

  /** Index of the first message of the group coordinator's ctx.sent not yet looked at, and that context. */
  #gcDelivered = 0;
  #gcCtx: FakeContext | null = null;

  #route(to: ActorId, message: Message): void {
    if (to === GROUP_COORDINATOR && this.groupCoordinator !== null) {
      this.groupCoordinator.send(this.id, message);
      return;
    }
    if (!(BROKERS as readonly string[]).includes(to)) return;
    this.brokerRequests.push({ to, message });
    if (this.downBrokers.has(to)) {
      this.actor.receive(to, { type: "SimDisconnect", reason: "down", connection: "*" }, this.ctx);
      return;
    }
    if (message.type === "MetadataRequest") this.actor.receive(to, this.#metadata(message), this.ctx);
    if (message.type === "WriteTxnMarkersRequest") {
      const response = this.#markers(to, message);
      if (response !== null) this.actor.receive(to, response, this.ctx);
    }
  }

  leaderOf(partition: number): string {
    return this.leaders.get(partition) ?? (BROKERS[partition % 2] as string);
  }

  #metadata(request: MetadataRequest): MetadataResponse {
    return {
      type: "MetadataResponse",
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      brokers: BROKERS.map((host, nodeId) => ({ nodeId, host, port: 9092, rack: null })),
      controllerId: 0,
      topics: (request.topics ?? []).map(({ name }) => ({
        errorCode: name === OUT.name ? 0 : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        name: name ?? "",
        topicId: "",
        isInternal: false,
        partitions:
          name === OUT.name
            ? Array.from({ length: OUT.partitions }, (_, partitionIndex) => {
                const leader = this.leaderOf(partitionIndex);
                return {
                  errorCode: 0,
                  partitionIndex,
                  leaderId: BROKERS.indexOf(leader as (typeof BROKERS)[number]),
                  leaderEpoch: 0,
                  replicaNodes: [0, 1],
                  isrNodes: [0, 1],
                };
              })
            : [],
      })),
    };
  }

  #markers(to: ActorId, request: WriteTxnMarkersRequest): WriteTxnMarkersResponse | null {
    let silent = false;
    const markers = request.markers.map((marker) => ({
      producerId: marker.producerId,
      topics: marker.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitionIndexes.map((partition) => {
          const leads = this.leaderOf(partition) === to;
          const answer = leads ? this.markerAnswer(topic.name, partition, marker) : ErrorCode.NOT_LEADER_OR_FOLLOWER;
          if (answer === null) silent = true;
          return { partitionIndex: partition, errorCode: answer ?? 0 };
        }),
      })),
    }));
    return silent ? null : { type: "WriteTxnMarkersResponse", correlationId: request.correlationId, markers };
  }

  advanceMs(milliseconds: number): void {
    this.advance(ms(milliseconds));
  }

  /** Moves the clock (and the group coordinator's) forward, firing timers and delivering what they send. */
  advance(by: Micros): void {
    const end = this.ctx.time + by;
    for (;;) {
      let next: Micros | undefined;
      for (const timer of this.ctx.timers.values()) if (timer.due <= end && (next === undefined || timer.due < next)) next = timer.due;
      if (next === undefined) break;
      this.groupCoordinator?.advance(next - this.groupCoordinator.ctx.time);
      this.ctx.advance(this.actor, next - this.ctx.time);
      this.pump();
    }
    this.groupCoordinator?.advance(end - this.groupCoordinator.ctx.time);
    this.ctx.advance(this.actor, end - this.ctx.time);
    this.pump();
  }

  observations(type: string): Observation[] {
    return this.ctx.observationsOf(type);
  }

  /** The txn.state transitions as "from->to@epoch". */
  transitions(transactionalId = TRANSACTIONAL_ID): string[] {
    return this.observations("txn.state")
      .filter((o) => o.transactionalId === transactionalId)
      .map((o) => `${o.from}->${o.to}@${o.producerEpoch}`);
  }

  snapshot(): TxnCoordinatorSnapshotView {
    return this.actor.snapshot?.() as unknown as TxnCoordinatorSnapshotView;
  }

  transaction(transactionalId = TRANSACTIONAL_ID): TransactionView {
    const txn = this.snapshot().transactions.find((t) => t.transactionalId === transactionalId);
    if (txn === undefined) throw new Error(`no transaction ${transactionalId}`);
    return txn;
  }

  /** The WriteTxnMarkers requests the coordinator sent to brokers. */
  markerRequests(): { to: ActorId; request: WriteTxnMarkersRequest }[] {
    return this.brokerRequests.flatMap(({ to, message }) => (message.type === "WriteTxnMarkersRequest" ? [{ to, request: message }] : []));
  }
}

export interface TransactionView {
  transactionalId: string;
  producerId: number;
  lastProducerId: number;
  nextProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  clientTransactionVersion: number;
  state: string;
  pendingState: string | null;
  partitions: string[];
  txnTimeoutMs: number;
  txnStartTimestamp: number;
}

export interface TxnCoordinatorSnapshotView {
  loading: boolean;
  coordinatorEpoch: number;
  nextProducerId: number | null;
  transactions: TransactionView[];
  markers: { transactionalId: string; queued: string[]; inFlight: string[] }[];
  leaders: Record<string, string>;
}
