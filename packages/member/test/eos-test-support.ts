import {
  CoordinatorKeyType,
  type EndTxnRequest,
  ErrorCode,
  type JsonValue,
  type MetadataRequest,
  type ProduceRequest,
  type TxnOffsetCommitRequest,
  topicIdFor,
  tpKey,
} from "@kcsim/protocol";
import { SyntheticRecordSource } from "../src/consumer/synthetic-record-source.js";
import { assignmentBytes, ClassicDriver } from "./classic-test-support.js";
import { type ConsumerDriver, type HeartbeatReply, type Sent, T1_ID } from "./consumer-test-support.js";

/** Shared set-up of the consume-process-produce tests (not a test file itself). */

export const GROUP_COORDINATOR = "coordinator-0";
export const TXN_COORDINATOR = "txn-coordinator-0";
export const DATA_BROKER = "data-0";
export const OUT = "OUT";

export interface EosConfigOptions {
  readonly protocol?: "consumer" | "classic";
  readonly transactional?: boolean;
  readonly app?: Record<string, JsonValue>;
  readonly consumer?: Record<string, JsonValue>;
  /** The cluster's transaction.version (the config's field left out when undefined). */
  readonly transactionVersion?: number;
}

/** A member reading T1 (4 partitions) and sending one result per record to OUT (2 partitions). */
export function eosConfig(options: EosConfigOptions = {}): JsonValue {
  const classic = options.protocol === "classic";
  return {
    consumer: {
      "group.id": "g1",
      "group.protocol": classic ? "classic" : "consumer",
      "enable.auto.commit": false,
      "isolation.level": "read_committed",
      "auto.offset.reset": "earliest",
      ...(classic ? { "partition.assignment.strategy": ["range"], "session.timeout.ms": 10_000, "heartbeat.interval.ms": 3000 } : {}),
      ...options.consumer,
    },
    bootstrap: [GROUP_COORDINATOR],
    subscription: ["T1"],
    topics: [
      { name: "T1", id: T1_ID, partitions: 4 },
      { name: OUT, id: topicIdFor(OUT), partitions: 2 },
    ],
    app: {
      mode: "consume-process-produce",
      output: {
        topic: OUT,
        transactional: options.transactional ?? true,
        producer: { "linger.ms": 0, "request.timeout.ms": 1000, "delivery.timeout.ms": 5000 },
      },
      processingMsPerRecord: 10,
      pollTimeoutMs: 1000,
      ...options.app,
    },
    source: { kind: "fetch", brokers: [DATA_BROKER] },
    transactionCoordinators: [TXN_COORDINATOR],
    ...(options.transactionVersion === undefined ? {} : { transactionVersion: options.transactionVersion }),
  };
}

/** Records from an in-memory log (T1-p@o keys and values) instead of the fetcher: no Fetch to script. */
export function syntheticRecords(recordsPerSecondPerPartition = 20): SyntheticRecordSource {
  return new SyntheticRecordSource({ kind: "synthetic", recordsPerSecondPerPartition, recordBytes: 100 });
}

/** One record the fake leader appended. */
export interface ProducedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly transactional: boolean;
  /** A transactional record's fate: its transaction committed or aborted, or still open. */
  fate: "committed" | "aborted" | "open";
}

/** How the fake cluster departs from answering everything with success. */
export interface FakeKafkaScript {
  /** The error of the n-th TxnOffsetCommit (1-based), NONE by default. */
  txnOffsetCommitError?(request: TxnOffsetCommitRequest, n: number): number;
  /** The n-th EndTxn's answer: an error code, or "drop" to leave it unanswered. */
  endTxn?(request: EndTxnRequest, n: number): number | "drop";
  /** A KIP-848 heartbeat's answer (default: epoch 1 and T1 [0, 1] when joining, the same epoch after), or "drop". */
  heartbeat?(request: { memberEpoch: number }): HeartbeatReply | "drop";
}

/**
 * Everything the member talks to, answering at once: the group
 * coordinator (FindCoordinator, KIP-848 heartbeats or the classic
 * join/sync/heartbeat as one follower at generation 1, OffsetFetch of what
 * was committed, OffsetCommit), the data broker leading every partition
 * (Metadata, Produce: offsets from 0 per partition) and the transaction
 * coordinator (InitProducerId with one producer id and a growing epoch,
 * AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit pending until the
 * EndTxn that commits it; an EndTxn v5, of transaction version 2, bumps the
 * epoch and answers with it). It keeps what was produced and committed.
 */
export class FakeKafka {
  readonly produced: ProducedRecord[] = [];
  readonly txnOffsetCommits: TxnOffsetCommitRequest[] = [];
  readonly endTxns: EndTxnRequest[] = [];
  /** Committed offsets by `topic-partition`. */
  readonly committed = new Map<string, number>();
  readonly #driver: ConsumerDriver;
  readonly #script: FakeKafkaScript;
  readonly #answered = new Set<Sent>();
  readonly #logEnd = new Map<string, number>();
  readonly #pendingOffsets = new Map<number, Map<string, number>>();
  #epoch = -1;

  constructor(driver: ConsumerDriver, script: FakeKafkaScript = {}) {
    this.#driver = driver;
    this.#script = script;
  }

  /** Values of the records of committed transactions and of non-transactional records, in produce order. */
  committedValues(): string[] {
    return this.produced.filter((r) => !r.transactional || r.fate === "committed").map((r) => r.value ?? "");
  }

  /** Ends the open transaction of a producer: its records are committed or aborted. */
  #endTransaction(producerId: number, committed: boolean): void {
    for (const record of this.produced)
      if (record.producerId === producerId && record.fate === "open") record.fate = committed ? "committed" : "aborted";
  }

  /** Runs `durationMs` of virtual time, answering everything the member sends. */
  run(durationMs: number): void {
    const ctx = this.#driver.ctx;
    const until = ctx.virtualNow() + durationMs * 1000;
    this.answer();
    for (let guard = 0; guard < 1_000_000; guard++) {
      const timer = ctx.nextTimer(until);
      if (timer === null) break;
      ctx.setNow(timer.due);
      ctx.timers.delete(timer.name);
      this.#driver.actor.fire(timer.name, ctx);
      this.answer();
    }
    ctx.setNow(until);
  }

  /** Runs until `done` holds (checked after every step), for at most `maxMs`. */
  runUntil(done: () => boolean, maxMs = 60_000): void {
    const ctx = this.#driver.ctx;
    const until = ctx.virtualNow() + maxMs * 1000;
    this.answer();
    for (let guard = 0; guard < 1_000_000 && !done(); guard++) {
      const timer = ctx.nextTimer(until);
      if (timer === null) break;
      ctx.setNow(timer.due);
      ctx.timers.delete(timer.name);
      this.#driver.actor.fire(timer.name, ctx);
      this.answer();
    }
    if (!done()) throw new Error(`condition not reached within ${maxMs} ms`);
  }

  /** Answers every request not answered yet, including those its answers lead to. */
  answer(): void {
    for (let round = 0; round < 1000; round++) {
      const pending = this.#driver.ctx.sent.filter((sent) => !this.#answered.has(sent));
      if (pending.length === 0) return;
      for (const sent of pending) {
        this.#answered.add(sent);
        this.#answerOne(sent);
      }
    }
  }

  #reply(sent: Sent, message: Parameters<ConsumerDriver["deliver"]>[1]): void {
    this.#driver.deliver(sent.to, message);
  }

  #answerOne(sent: Sent): void {
    const message = sent.message;
    const header = { correlationId: "correlationId" in message ? message.correlationId : 0, throttleTimeMs: 0 };
    switch (message.type) {
      case "FindCoordinatorRequest": {
        const host = message.keyType === CoordinatorKeyType.TRANSACTION ? TXN_COORDINATOR : GROUP_COORDINATOR;
        const coordinators = message.coordinatorKeys.map((key) => ({ key, nodeId: 0, host, port: 9092, errorCode: 0, errorMessage: null }));
        this.#reply(sent, { type: "FindCoordinatorResponse", ...header, coordinators });
        return;
      }
      case "ConsumerGroupHeartbeatRequest": {
        const reply =
          this.#script.heartbeat?.(message) ??
          (message.memberEpoch === 0 ? { epoch: 1, assignment: { [T1_ID]: [0, 1] } } : { epoch: message.memberEpoch });
        if (reply === "drop") return;
        this.#reply(sent, this.#driver.heartbeatResponse(message, reply));
        return;
      }
      case "JoinGroupRequest": {
        const known = message.memberId !== "";
        this.#reply(sent, {
          type: "JoinGroupResponse",
          ...header,
          errorCode: known ? ErrorCode.NONE : ErrorCode.MEMBER_ID_REQUIRED,
          generationId: known ? 1 : -1,
          protocolType: "consumer",
          protocolName: message.protocols[0]?.name ?? null,
          leader: "other-leader",
          skipAssignment: false,
          memberId: known ? message.memberId : "m-1",
          members: [],
        });
        return;
      }
      case "SyncGroupRequest":
        this.#reply(sent, {
          type: "SyncGroupResponse",
          ...header,
          errorCode: ErrorCode.NONE,
          protocolType: "consumer",
          protocolName: message.protocolName,
          assignment: assignmentBytes({ T1: [0, 1] }),
        });
        return;
      case "HeartbeatRequest":
        this.#reply(sent, { type: "HeartbeatResponse", ...header, errorCode: ErrorCode.NONE });
        return;
      case "OffsetFetchRequest": {
        const group = message.groups[0];
        const topics = (group?.topics ?? []).map((topic) => ({
          name: topic.name,
          partitions: topic.partitionIndexes.map((partitionIndex) => ({
            partitionIndex,
            committedOffset: this.committed.get(tpKey(topic.name, partitionIndex)) ?? -1,
            committedLeaderEpoch: -1,
            metadata: null,
            errorCode: ErrorCode.NONE,
          })),
        }));
        this.#reply(sent, { type: "OffsetFetchResponse", ...header, groups: [{ groupId: "g1", errorCode: ErrorCode.NONE, topics }] });
        return;
      }
      case "OffsetCommitRequest":
        for (const topic of message.topics)
          for (const p of topic.partitions) this.committed.set(tpKey(topic.name, p.partitionIndex), p.committedOffset);
        this.#reply(sent, {
          type: "OffsetCommitResponse",
          ...header,
          topics: message.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })),
          })),
        });
        return;
      case "MetadataRequest":
        this.#reply(sent, this.#metadata(message));
        return;
      case "ProduceRequest":
        this.#reply(sent, this.#produce(message));
        return;
      case "InitProducerIdRequest":
        // A new epoch fences the old one and aborts what it left open.
        this.#endTransaction(7, false);
        this.#epoch++;
        this.#reply(sent, {
          type: "InitProducerIdResponse",
          ...header,
          errorCode: ErrorCode.NONE,
          producerId: 7,
          producerEpoch: this.#epoch,
        });
        return;
      case "AddPartitionsToTxnRequest":
        this.#reply(sent, {
          type: "AddPartitionsToTxnResponse",
          ...header,
          errorCode: ErrorCode.NONE,
          results: message.topics.map((t) => ({
            name: t.name,
            results: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: 0 })),
          })),
        });
        return;
      case "AddOffsetsToTxnRequest":
        this.#reply(sent, { type: "AddOffsetsToTxnResponse", ...header, errorCode: ErrorCode.NONE });
        return;
      case "TxnOffsetCommitRequest": {
        this.txnOffsetCommits.push(message);
        const errorCode = this.#script.txnOffsetCommitError?.(message, this.txnOffsetCommits.length) ?? ErrorCode.NONE;
        if (errorCode === ErrorCode.NONE) {
          const pending = this.#pendingOffsets.get(message.producerId) ?? new Map<string, number>();
          for (const t of message.topics) for (const p of t.partitions) pending.set(tpKey(t.name, p.partitionIndex), p.committedOffset);
          this.#pendingOffsets.set(message.producerId, pending);
        }
        this.#reply(sent, {
          type: "TxnOffsetCommitResponse",
          ...header,
          topics: message.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
          })),
        });
        return;
      }
      case "EndTxnRequest": {
        this.endTxns.push(message);
        const answer = this.#script.endTxn?.(message, this.endTxns.length) ?? ErrorCode.NONE;
        if (answer === "drop") return;
        if (answer === ErrorCode.NONE) {
          const pending = this.#pendingOffsets.get(message.producerId);
          this.#pendingOffsets.delete(message.producerId);
          if (message.committed) for (const [tp, offset] of pending ?? []) this.committed.set(tp, offset);
          this.#endTransaction(message.producerId, message.committed);
        }
        // Transaction version 2: the coordinator ends the transaction with the epoch bumped, and answers with it.
        const bumped = answer === ErrorCode.NONE && message.apiVersion >= 5 ? ++this.#epoch : -1;
        this.#reply(sent, {
          type: "EndTxnResponse",
          ...header,
          errorCode: answer,
          producerId: bumped === -1 ? -1 : 7,
          producerEpoch: bumped,
        });
        return;
      }
      default:
    }
  }

  #metadata(request: MetadataRequest) {
    const topic = (name: string, partitions: number) => ({
      errorCode: 0,
      name,
      topicId: topicIdFor(name),
      isInternal: false,
      partitions: Array.from({ length: partitions }, (_, partitionIndex) => ({
        errorCode: 0,
        partitionIndex,
        leaderId: 0,
        leaderEpoch: 0,
        replicaNodes: [0],
        isrNodes: [0],
      })),
    });
    return {
      type: "MetadataResponse" as const,
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      brokers: [{ nodeId: 0, host: DATA_BROKER, port: 9092, rack: null }],
      controllerId: 0,
      topics: [topic("T1", 4), topic(OUT, 2)],
    };
  }

  #produce(request: ProduceRequest) {
    return {
      type: "ProduceResponse" as const,
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      responses: request.topicData.map((topic) => ({
        name: topic.name,
        partitionResponses: topic.partitionData.map(({ index, records: batch }) => {
          const key = tpKey(topic.name, index);
          const baseOffset = this.#logEnd.get(key) ?? 0;
          batch.records.forEach((record, i) => {
            this.produced.push({
              topic: topic.name,
              partition: index,
              offset: baseOffset + i,
              key: record.key,
              value: record.value,
              producerId: batch.producerId,
              producerEpoch: batch.producerEpoch,
              transactional: batch.isTransactional,
              fate: "open",
            });
          });
          this.#logEnd.set(key, baseOffset + batch.records.length);
          return { index, errorCode: 0, baseOffset, logAppendTimeMs: -1, logStartOffset: 0, errorMessage: null };
        }),
      })),
    };
  }
}

/** A classic member driver (group.protocol=classic) for the same set-up. */
export function classicEosDriver(config: JsonValue, seed = 1): ClassicDriver {
  return new ClassicDriver(config, { recordSource: syntheticRecords(), seed });
}
