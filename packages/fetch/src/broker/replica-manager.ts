import {
  type AbortedTransaction,
  type ActorId,
  type AddPartitionsToTxnManager,
  addPartitionsToTxnManagerFor,
  type BrokerConfig,
  type Context,
  ControlRecordType,
  ErrorCode,
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartition,
  IsolationLevel,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  ListOffsetsTimestamp,
  type Message,
  type Micros,
  ms,
  type OffsetForLeaderEpochRequest,
  type OffsetForLeaderEpochResponse,
  type ProduceRequest,
  produceTransactionOperation,
  type RecordBatch,
  SENTINEL_GUARD,
  type TransactionSupportedOperation,
  tpKey,
  UNDEFINED_EPOCH,
  type VerificationGuard,
  type WriteTxnMarkersRequest,
  type WriteTxnMarkersResponse,
} from "@kcsim/protocol";
import type { BrokerTxnMarkerObservation, FetchSessionObservation } from "../observations.js";
import type { CachedPartition } from "../session/cached-partition.js";
import { type FetchContext, IncrementalFetchContext, SessionErrorContext } from "../session/fetch-context.js";
import { FetchManager } from "../session/fetch-manager.js";
import { INITIAL_EPOCH, INVALID_SESSION_ID } from "../session/fetch-metadata.js";
import { FetchSessionCache } from "../session/fetch-session-cache.js";
import { NO_PREFERRED_READ_REPLICA, type PartitionReadResult, readBytesOf } from "../session/partition-read-result.js";
import type { FetchTarget } from "../session/topic-id-partition.js";
import type { BrokerActorConfig } from "./broker-actor-config.js";
import type { BrokerStorageRecord } from "./broker-storage.js";
import { DelayedFetch, DelayedFetchPartition, type FetchParams, fetchUpperBound, isFromFollower } from "./delayed-fetch.js";
import { DelayedOperationPurgatory } from "./delayed-operation-purgatory.js";
import { DelayedProduce, type ProducePartitionStatus, produceResponseOf } from "./delayed-produce.js";
import { MetadataCache, type PartitionStateChange } from "./metadata-cache.js";
import { type AlterPartitionOutcome, type IsrProposal, type LeaderAppendResult, Partition, type PartitionHost } from "./partition.js";
import { type LogChange, lastOffsetOf, PartitionLog } from "./partition-log.js";
import type { ReplicaFetcherHost } from "./replica-fetcher.js";
import { ReplicaFetcherManager } from "./replica-fetcher-manager.js";

/** Room for this many (fetcher, isolation level) pairs per metadata version in a read stamp. */
const FETCHER_STAMPS = 1 << 20;

/** Timer name prefixes of parked requests. */
const DELAYED_FETCH_TIMER = "delayed-fetch:";
const DELAYED_PRODUCE_TIMER = "delayed-produce:";
/** Timer name prefix of a transaction version 2 add the leader retries after CONCURRENT_TRANSACTIONS. */
const ADD_PARTITIONS_RETRY_TIMER = "txn-add-retry:";

/** What an append attempt on this broker came to: an error, or the offsets of the batch (appended or duplicate) and its partition. */
interface AppendOutcome {
  readonly errorCode: number;
  readonly baseOffset?: number;
  readonly lastOffset?: number;
  readonly partition?: Partition;
}

/**
 * One round of asking the transaction coordinator about a produce request's
 * transactional partitions: the guards their appends carry (by tpKey), and
 * the partitions that failed with their errors (found here or answered).
 */
interface TransactionCoordinatorAnswer {
  readonly guards: ReadonlyMap<string, VerificationGuard>;
  readonly errors: ReadonlyMap<string, number>;
}

/** Where the replica manager reaches the rest of its broker. */
export interface ReplicaManagerWiring {
  /** The actor context of the event being handled. */
  ctx(): Context;
  nextCorrelationId(): number;
  submitAlterPartition(partition: Partition, proposal: IsrProposal): void;
}

/** A Fetch response partition carrying only an error (Kafka's `FetchResponse.partitionResponse`). */
function errorPartition(partitionIndex: number, errorCode: number): FetchResponsePartition {
  return {
    partitionIndex,
    errorCode,
    highWatermark: -1,
    lastStableOffset: -1,
    logStartOffset: -1,
    abortedTransactions: null,
    preferredReadReplica: NO_PREFERRED_READ_REPLICA,
    records: [],
  };
}

/** The reads followed by the partitions answered with an error without a read (almost always none: no copy then). */
function withErroneous(reads: PartitionReadResult[], erroneous: readonly PartitionReadResult[]): PartitionReadResult[] {
  if (erroneous.length === 0) return reads;
  for (let i = 0; i < erroneous.length; i++) reads.push(erroneous[i] as PartitionReadResult);
  return reads;
}

/** A read of a partition that failed with an error (no records). */
function failedRead(target: FetchTarget, errorCode: number): PartitionReadResult {
  return { topicId: target.topicId, data: errorPartition(target.partition, errorCode), recordsBytes: 0 };
}

/**
 * The partitions a broker hosts and the request paths into them (Kafka's
 * `ReplicaManager` with the parts of `KafkaApis` that feed it): role changes
 * from the controller's metadata, produce with acks 0/1/all (acks=all parked
 * until the high watermark covers the batch), fetch for consumers and
 * followers with KIP-227 sessions and fetch sizing (parked until
 * fetch.min.bytes or fetch.max.wait.ms), ListOffsets and
 * OffsetForLeaderEpoch, and the periodic ISR shrink, high-watermark
 * checkpoint and retention.
 */
export class ReplicaManager implements PartitionHost, ReplicaFetcherHost {
  readonly brokerId: number;
  readonly settings: BrokerConfig;
  readonly replicaLagTimeMax: Micros;
  readonly minInsyncReplicas: number;
  readonly metadataCache = new MetadataCache();
  readonly fetchManager: FetchManager;
  readonly #wiring: ReplicaManagerWiring;
  /** Every partition with a log here, in creation order (the order periodic tasks visit them). */
  readonly #partitions = new Map<string, Partition>();
  /** The same partitions by topic, then index: looked up on every read and append, with no key string built. */
  readonly #byTopic = new Map<string, Partition[]>();
  readonly #fetchPurgatory = new DelayedOperationPurgatory<DelayedFetch>();
  readonly #producePurgatory = new DelayedOperationPurgatory<DelayedProduce>();
  readonly #fetchers: ReplicaFetcherManager;
  readonly #topicIds: ReadonlyMap<string, string>;
  readonly #ackBeforeReplication: boolean;
  /** Small numbers for (fetcher, isolation level) pairs, for read stamps. */
  readonly #fetcherStamps = new Map<number, number>();
  #nextDelayedId = 0;
  /**
   * KIP-890's AddPartitionsToTxnManager: verifies the writes of producers before transaction version 2 (when
   * transaction.partition.verification.enable is on) and adds partitions for those of version 2; null when there
   * is no transaction coordinator to ask.
   */
  readonly #addPartitionsToTxnManager: AddPartitionsToTxnManager | null;
  /** transaction.partition.verification.enable. */
  readonly #verificationEnabled: boolean;
  /** Transaction version 2 adds waiting to be retried, by the id in their timer's name. */
  readonly #addRetries = new Map<number, (ctx: Context) => void>();
  #nextAddRetryId = 0;

  constructor(config: BrokerActorConfig, wiring: ReplicaManagerWiring) {
    this.#wiring = wiring;
    this.brokerId = config.brokerId;
    this.settings = config.settings;
    this.replicaLagTimeMax = ms(config.settings["replica.lag.time.max.ms"]);
    this.minInsyncReplicas = config.settings["min.insync.replicas"];
    this.#topicIds = new Map(config.topics.map((t) => [t.name, t.id]));
    this.#ackBeforeReplication = config.plantedBugs.has("ack-before-replication");
    this.fetchManager = new FetchManager(
      new FetchSessionCache({
        random: () => wiring.ctx().random(),
        maxSlots: config.settings["max.incremental.fetch.session.cache.slots"],
      }),
    );
    const hosts = new Map(config.brokers.map((b) => [b.nodeId, b.host]));
    this.#fetchers = new ReplicaFetcherManager(this, (nodeId) => hosts.get(nodeId));
    this.#addPartitionsToTxnManager = addPartitionsToTxnManagerFor(config.settings, config.txnCoordinators);
    this.#verificationEnabled = config.settings["transaction.partition.verification.enable"];
  }

  now(): Micros {
    return this.#wiring.ctx().now();
  }

  nextCorrelationId(): number {
    return this.#wiring.nextCorrelationId();
  }

  // --- partitions and their logs ---

  /** A partition this broker has a log for (hosted or not). */
  partition(topic: string, index: number): Partition | undefined {
    return this.#byTopic.get(topic)?.[index];
  }

  /** A partition this broker currently hosts as leader or follower. */
  hosted(topic: string, index: number): Partition | undefined {
    const partition = this.partition(topic, index);
    return partition !== undefined && partition.role !== "none" ? partition : undefined;
  }

  /** `hosted` as a function value, made once (parked produces look their partitions up with it). */
  readonly #hostedPartition = (topic: string, index: number): Partition | undefined => this.hosted(topic, index);

  partitions(): Partition[] {
    return [...this.#partitions.values()];
  }

  #partitionOrCreate(topic: string, index: number): Partition | undefined {
    const key = tpKey(topic, index);
    const existing = this.#partitions.get(key);
    if (existing !== undefined) return existing;
    const topicId = this.#topicIds.get(topic) ?? this.metadataCache.topicId(topic);
    if (topicId === undefined) return undefined;
    const roll = { segmentBytes: this.settings["log.segment.bytes"], rollMs: this.settings["log.roll.ms"] };
    const log = new PartitionLog(roll, (change: LogChange) => {
      const record: BrokerStorageRecord = { topic, partition: index, change };
      this.#wiring.ctx().storage.append(record);
    });
    const partition = new Partition(topic, topicId, index, log, this);
    this.#partitions.set(key, partition);
    let byIndex = this.#byTopic.get(topic);
    if (byIndex === undefined) {
      byIndex = [];
      this.#byTopic.set(topic, byIndex);
    }
    byIndex[index] = partition;
    return partition;
  }

  /** Rebuilds the logs from durable storage (a restart). */
  recover(records: readonly BrokerStorageRecord[]): void {
    for (const record of records) {
      if ("change" in record) this.#partitionOrCreate(record.topic, record.partition)?.log.replay(record.change);
    }
    for (const partition of this.#partitions.values()) partition.log.finishReplay();
  }

  // --- metadata: roles ---

  /**
   * Applies partition states newer than what the broker knew (Kafka's
   * `applyDelta`): this broker becomes leader (new epoch from its log end)
   * or follower (its fetcher restarts, truncating first, when the leader
   * epoch changed). Parked requests on those partitions are re-checked.
   */
  applyPartitionStates(changes: readonly PartitionStateChange[], ctx: Context): void {
    for (const { topic, state } of changes) {
      if (!state.replicas.includes(this.brokerId)) continue;
      const partition = this.#partitionOrCreate(topic, state.partitionIndex);
      if (partition === undefined) continue;
      const before = { role: partition.role, epoch: partition.leaderEpoch };
      if (state.leader === this.brokerId) {
        const result = partition.makeLeader(state);
        if (!result.applied) continue;
        this.#fetchers.unfollow(topic, partition.index, ctx);
        if (result.highWatermarkIncremented) this.#highWatermarkIncremented(partition, ctx);
      } else {
        const newEpoch = partition.makeFollower(state);
        if (newEpoch === undefined) continue;
        if (newEpoch || before.role !== "follower") {
          if (state.leader >= 0) this.#fetchers.follow(partition, ctx);
          else this.#fetchers.unfollow(topic, partition.index, ctx);
        }
      }
      if (before.role !== partition.role || before.epoch !== partition.leaderEpoch) {
        ctx.observe({
          type: "broker.role",
          topic,
          partition: partition.index,
          role: partition.role,
          leaderEpoch: partition.leaderEpoch,
          isr: [...partition.isr],
          logEndOffset: partition.log.logEndOffset,
          highWatermark: partition.log.highWatermark,
        });
      }
      this.#partitionChanged(partition, ctx);
    }
    this.#fetchers.poll(ctx);
  }

  // --- PartitionHost ---

  isReplicaIsrEligible(brokerId: number): boolean {
    return this.metadataCache.isBrokerAlive(brokerId);
  }

  submitAlterPartition(partition: Partition, proposal: IsrProposal): void {
    this.#wiring.submitAlterPartition(partition, proposal);
  }

  /** The controller's answer to an ISR proposal; returns whether to send it again. */
  onAlterPartitionOutcome(partition: Partition, proposal: IsrProposal, outcome: AlterPartitionOutcome, ctx: Context): boolean {
    const result = partition.handleAlterPartitionOutcome(proposal, outcome);
    if (result.highWatermarkIncremented) this.#highWatermarkIncremented(partition, ctx);
    this.#partitionChanged(partition, ctx);
    return result.retry;
  }

  // --- ReplicaFetcherHost ---

  onTruncated(partition: Partition, previousEndOffset: number, offset?: number): void {
    const ctx = this.#wiring.ctx();
    ctx.observe({
      type: "broker.truncate",
      topic: partition.topic,
      partition: partition.index,
      offset: offset ?? partition.log.logEndOffset,
      previousEndOffset,
    });
  }

  onFetcherTimer(timer: string, ctx: Context): boolean {
    return this.#fetchers.onTimer(timer, ctx);
  }

  get fetchers(): ReplicaFetcherManager {
    return this.#fetchers;
  }

  // --- high watermark and parked requests ---

  #highWatermarkIncremented(partition: Partition, ctx: Context): void {
    ctx.observe({ type: "broker.hw", topic: partition.topic, partition: partition.index, highWatermark: partition.log.highWatermark });
  }

  /** Re-checks the parked fetches and produces watching a partition (Kafka's `tryCompleteDelayedRequests`). */
  #partitionChanged(partition: Partition, ctx: Context): void {
    const key = tpKey(partition.topic, partition.index);
    for (const op of this.#producePurgatory.watching(key)) {
      if (op.tryComplete(this.#hostedPartition)) this.#completeProduce(op.id, ctx);
    }
    for (const op of this.#fetchPurgatory.watching(key)) {
      if (op.tryComplete(this.#hostedItem, this.#readStamp(op.params))) this.#completeFetch(op.id, ctx);
    }
  }

  /** A parked request's timer; false if the timer is not one of them. */
  onDelayedTimer(timer: string, ctx: Context): boolean {
    if (timer.startsWith(DELAYED_FETCH_TIMER)) {
      this.#completeFetch(Number(timer.slice(DELAYED_FETCH_TIMER.length)), ctx);
      return true;
    }
    if (timer.startsWith(DELAYED_PRODUCE_TIMER)) {
      const op = this.#producePurgatory.get(Number(timer.slice(DELAYED_PRODUCE_TIMER.length)));
      // Settle what can be settled; what is still pending answers REQUEST_TIMED_OUT.
      op?.tryComplete((topic, index) => this.hosted(topic, index));
      if (op !== undefined) this.#completeProduce(op.id, ctx);
      return true;
    }
    return false;
  }

  // --- produce ---

  /**
   * Produce (Kafka's `handleProduceRequest`, `handleProduceAppend`,
   * `appendRecords`). acks=0 gets no response. Batches with a producer id go
   * through the partition's producer state: a duplicate of one of the
   * producer's latest five batches is answered with the offsets of the
   * original append (and, with acks=all, once they are replicated), as
   * Kafka does.
   *
   * KIP-890 part 1: a transactional batch for a partition where its
   * producer has no transaction open is first verified with the transaction
   * coordinator (`AddPartitionsToTxnManager`); the request waits for the
   * answer. A partition outside the transaction is INVALID_TXN_STATE (below
   * Produce v11; TRANSACTION_ABORTABLE from v11); the coordinator's
   * retriable errors become NOT_ENOUGH_REPLICAS, which older clients retry
   * without a metadata refresh; the other partitions are appended with
   * their verification's guard. Only with
   * transaction.partition.verification.enable.
   *
   * KIP-890 part 2 (Produce v12+, a producer of transaction version 2,
   * which sends no AddPartitionsToTxn itself): the coordinator is asked to
   * add the partitions, whatever transaction.partition.verification.enable
   * says (it only decides whether the append checks the guard). While the
   * coordinator answers CONCURRENT_TRANSACTIONS (the producer's previous
   * transaction is still ending) the leader asks again every
   * add.partitions.to.txn.retry.backoff.ms, then answers the producer
   * CONCURRENT_TRANSACTIONS once min(add.partitions.to.txn.retry.backoff.max.ms,
   * request.timeout.ms) has passed since the first attempt (Kafka's
   * `handleProduceAppend`, KAFKA-18654/18662).
   */
  handleProduce(from: ActorId, request: ProduceRequest, ctx: Context): void {
    const manager = this.#addPartitionsToTxnManager;
    const operation = produceTransactionOperation(request.apiVersion);
    const adds = operation === "addPartition";
    // Kafka's maybeSendPartitionsToTransactionCoordinator: nobody to ask, or a write it would only verify, unverified.
    if (manager === null || (!adds && !this.#verificationEnabled)) {
      this.#produce(from, request, null, null, ctx);
      return;
    }
    // Without a transactional id nothing is asked, so a transactional batch is refused at the append (if it checks guards).
    const transactionalId = request.transactionalId;
    if (transactionalId === null) {
      this.#produce(from, request, this.#verificationEnabled ? new Map() : null, null, ctx);
      return;
    }
    const append = (answer: TransactionCoordinatorAnswer, answerCtx: Context) =>
      this.#produce(from, request, this.#verificationEnabled ? answer.guards : null, answer.errors, answerCtx);
    if (!adds) {
      this.#askTransactionCoordinator(manager, request, transactionalId, operation, ctx, append);
      return;
    }
    const startedAt = ctx.now();
    const retryFor = ms(Math.min(this.settings["add.partitions.to.txn.retry.backoff.max.ms"], this.settings["request.timeout.ms"]));
    const backoff = ms(this.settings["add.partitions.to.txn.retry.backoff.ms"]);
    const attempt = (attemptCtx: Context): void =>
      this.#askTransactionCoordinator(manager, request, transactionalId, operation, attemptCtx, (answer, answerCtx) => {
        const concurrent = [...answer.errors.values()].includes(ErrorCode.CONCURRENT_TRANSACTIONS);
        if (concurrent && answerCtx.now() - startedAt < retryFor) this.#retryAdd(attempt, backoff, answerCtx);
        else append(answer, answerCtx);
      });
    attempt(ctx);
  }

  /**
   * One round of Kafka's `maybeSendPartitionsToTransactionCoordinator` for a
   * produce request: each transactional partition led here starts a
   * verification (or has its transaction open: SENTINEL_GUARD), and those
   * that started one go to the transaction coordinator in one request;
   * `done` runs once, with the answer. For transaction version 2 a stale
   * epoch fails its partition here, unasked (Kafka 4.1, KAFKA-18042).
   */
  #askTransactionCoordinator(
    manager: AddPartitionsToTxnManager,
    request: ProduceRequest,
    transactionalId: string,
    operation: TransactionSupportedOperation,
    ctx: Context,
    done: (answer: TransactionCoordinatorAnswer, ctx: Context) => void,
  ): void {
    const supportsEpochBump = operation === "addPartition";
    const guards = new Map<string, VerificationGuard>();
    const errors = new Map<string, number>();
    const toAsk: { topic: string; partition: number }[] = [];
    let producer: { producerId: number; producerEpoch: number } | null = null;
    for (const topicData of request.topicData) {
      for (const { index, records } of topicData.partitionData) {
        if (!records.isTransactional || records.producerId < 0) continue;
        producer ??= { producerId: records.producerId, producerEpoch: records.producerEpoch };
        // A partition not led here fails its append as it would without verification.
        const partition = this.hosted(topicData.name, index);
        if (partition === undefined || !partition.isLeader) continue;
        const state = partition.log.producerState;
        const key = tpKey(topicData.name, index);
        if (supportsEpochBump && state.isEpochStale(records.producerId, records.producerEpoch)) {
          errors.set(key, ErrorCode.INVALID_PRODUCER_EPOCH);
          continue;
        }
        const guard = state.startVerification(records.producerId, records.baseSequence, records.producerEpoch, supportsEpochBump);
        guards.set(key, guard);
        if (guard !== SENTINEL_GUARD) toAsk.push({ topic: topicData.name, partition: index });
      }
    }
    if (producer === null || toAsk.length === 0) {
      done({ guards, errors }, ctx);
      return;
    }
    manager.verifyTransaction(ctx, { transactionalId, ...producer, partitions: toAsk }, operation, (answered, answerCtx) => {
      for (const [key, errorCode] of answered) errors.set(key, errorCode);
      done({ guards, errors }, answerCtx);
    });
  }

  /** Asks again, after `backoff`, to add partitions the coordinator answered CONCURRENT_TRANSACTIONS. */
  #retryAdd(attempt: (ctx: Context) => void, backoff: Micros, ctx: Context): void {
    const id = ++this.#nextAddRetryId;
    this.#addRetries.set(id, attempt);
    ctx.setTimer(`${ADD_PARTITIONS_RETRY_TIMER}${id}`, backoff);
  }

  /** The AddPartitionsToTxnManager's answers and resets (false: not the manager's). */
  onVerificationMessage(from: ActorId, message: Message, ctx: Context): boolean {
    return this.#addPartitionsToTxnManager?.receive(from, message, ctx) ?? false;
  }

  /** The AddPartitionsToTxnManager's request timeouts and the retries of transaction version 2 adds (false: neither). */
  onVerificationTimer(timer: string, ctx: Context): boolean {
    if (timer.startsWith(ADD_PARTITIONS_RETRY_TIMER)) {
      const id = Number(timer.slice(ADD_PARTITIONS_RETRY_TIMER.length));
      const attempt = this.#addRetries.get(id);
      this.#addRetries.delete(id);
      attempt?.(ctx);
      return true;
    }
    return this.#addPartitionsToTxnManager?.onTimer(timer, ctx) ?? false;
  }

  /**
   * The append of a produce request (after its verification, if any):
   * `guards` by tpKey (null: the broker does not check guards; a partition
   * not listed carries SENTINEL_GUARD), `failed` the partitions whose
   * verification or add failed, with their errors.
   */
  #produce(
    from: ActorId,
    request: ProduceRequest,
    guards: ReadonlyMap<string, VerificationGuard> | null,
    failed: ReadonlyMap<string, number> | null,
    ctx: Context,
  ): void {
    const acks = request.acks;
    const nowMs = Math.floor(ctx.now() / 1000);
    const operation = produceTransactionOperation(request.apiVersion);
    const supportsEpochBump = operation === "addPartition";
    const statuses: ProducePartitionStatus[] = [];
    const appended: Partition[] = [];
    // Indexed loops: a delivered message's arrays are frozen, and for-of over a frozen array makes an iterator each time.
    const topics = request.topicData;
    for (let t = 0; t < topics.length; t++) {
      const topicData = topics[t] as ProduceRequest["topicData"][number];
      const partitions = topicData.partitionData;
      for (let p = 0; p < partitions.length; p++) {
        const { index, records } = partitions[p] as ProduceRequest["topicData"][number]["partitionData"][number];
        // Only transactional batches are verified or added, and only they carry a guard; a failed add fails its
        // partition even where no guard is checked (transaction version 2 with verification off: Kafka's
        // handleProduceAppend appends only the partitions without an error).
        const key = records.isTransactional && (guards !== null || failed !== null) ? tpKey(topicData.name, index) : undefined;
        const failure = key === undefined ? undefined : failed?.get(key);
        const guard = guards === null ? null : ((key === undefined ? undefined : guards.get(key)) ?? SENTINEL_GUARD);
        const result =
          failure === undefined
            ? this.#appendToLeader(topicData.name, index, records, acks, nowMs, guard, supportsEpochBump, ctx)
            : { errorCode: produceVerificationError(failure, operation) };
        statuses.push(this.#statusOf(topicData.name, index, result, acks === -1));
        if (result.partition !== undefined) appended.push(result.partition);
      }
    }
    // Followers parked on these partitions can now read the new batches.
    for (const partition of appended) this.#partitionChanged(partition, ctx);
    if (acks === 0) return;
    const respond = (done: readonly ProducePartitionStatus[]) => produceResponseOf(request.correlationId, done);
    // Planted bug ack-before-replication: acks=all answered like acks=1, before the ISR has the records.
    if (acks === -1 && appended.length > 0 && !this.#ackBeforeReplication) {
      this.#awaitReplication(from, statuses, ms(Math.max(0, request.timeoutMs)), respond, ctx);
      return;
    }
    ctx.send(from, respond(statuses));
  }

  /** A partition's status after an append attempt: pending replication (acks=all) once appended or found a duplicate. */
  #statusOf(topic: string, index: number, result: AppendOutcome, acksAll: boolean): ProducePartitionStatus {
    const done = result.errorCode === ErrorCode.NONE && result.lastOffset !== undefined;
    return {
      topic,
      partition: index,
      requiredOffset: done ? (result.lastOffset as number) + 1 : -1,
      acksPending: done && acksAll,
      errorCode: result.errorCode,
      baseOffset: result.baseOffset ?? -1,
      logStartOffset: result.partition?.log.logStartOffset ?? -1,
    };
  }

  /** Parks an acks=all answer until the appended partitions are replicated (or answers at once if they already are). */
  #awaitReplication(
    from: ActorId,
    statuses: readonly ProducePartitionStatus[],
    timeout: Micros,
    respond: (statuses: readonly ProducePartitionStatus[]) => Message,
    ctx: Context,
  ): void {
    const op = new DelayedProduce(++this.#nextDelayedId, from, statuses, (s) => tpKey(s.topic, s.partition), respond);
    if (op.tryComplete((topic, index) => this.hosted(topic, index))) {
      ctx.send(from, op.response());
      return;
    }
    this.#producePurgatory.watch(op);
    ctx.setTimer(`${DELAYED_PRODUCE_TIMER}${op.id}`, timeout);
  }

  #appendToLeader(
    topic: string,
    index: number,
    batch: RecordBatch,
    acks: number,
    nowMs: number,
    guard: VerificationGuard | null,
    supportsEpochBump: boolean,
    ctx: Context,
  ): AppendOutcome {
    if (acks !== -1 && acks !== 0 && acks !== 1) return { errorCode: ErrorCode.INVALID_REQUIRED_ACKS };
    if (!this.metadataCache.contains(topic, index)) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
    if (batch.records.length === 0) return { errorCode: ErrorCode.CORRUPT_MESSAGE };
    // Only a transaction coordinator writes control batches; a transactional batch needs a producer id (Kafka's LogValidator).
    if (batch.isControl || (batch.isTransactional && batch.producerId < 0)) return { errorCode: ErrorCode.INVALID_RECORD };
    if (batch.sizeInBytes > this.settings["message.max.bytes"]) return { errorCode: ErrorCode.MESSAGE_TOO_LARGE };
    const partition = this.hosted(topic, index);
    if (partition === undefined) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    return this.#appended(partition, partition.appendRecordsToLeader(batch, acks, nowMs, guard, supportsEpochBump), ctx);
  }

  /** Observes what an append on the leader did; a refused append has no partition to re-check. */
  #appended(partition: Partition, result: LeaderAppendResult, ctx: Context): AppendOutcome {
    if (!("appended" in result)) return { errorCode: result.errorCode };
    if (result.appended !== null) {
      ctx.observe({
        type: "broker.append",
        topic: partition.topic,
        partition: partition.index,
        baseOffset: result.baseOffset,
        lastOffset: result.lastOffset,
        leaderEpoch: partition.leaderEpoch,
      });
    }
    if (result.highWatermarkIncremented) this.#highWatermarkIncremented(partition, ctx);
    return { errorCode: ErrorCode.NONE, baseOffset: result.baseOffset, lastOffset: result.lastOffset, partition };
  }

  // --- transaction markers ---

  /**
   * WriteTxnMarkers from a transaction coordinator (Kafka's
   * `handleWriteTxnMarkersRequest`): each marker's partitions get a COMMIT or
   * ABORT control batch for the producer, appended with acks=all, ending its
   * transaction there (the last stable offset moves once the marker is
   * replicated; an ABORT enters the aborted-transaction index). A partition
   * this broker does not lead answers NOT_LEADER_OR_FOLLOWER. The answer
   * waits until every appended marker is replicated, or request.timeout.ms.
   */
  handleWriteTxnMarkers(from: ActorId, request: WriteTxnMarkersRequest, ctx: Context): void {
    const nowMs = Math.floor(ctx.now() / 1000);
    const statuses: ProducePartitionStatus[] = [];
    const producerIds: number[] = [];
    const appended: Partition[] = [];
    for (const marker of request.markers) {
      const controlType = marker.transactionResult ? ControlRecordType.COMMIT : ControlRecordType.ABORT;
      for (const topic of marker.topics) {
        for (const index of topic.partitionIndexes) {
          const result = this.#appendMarker(topic.name, index, marker, controlType, nowMs, ctx);
          statuses.push(this.#statusOf(topic.name, index, result, true));
          producerIds.push(marker.producerId);
          if (result.partition !== undefined) appended.push(result.partition);
        }
      }
    }
    for (const partition of appended) this.#partitionChanged(partition, ctx);
    const respond = (done: readonly ProducePartitionStatus[]): WriteTxnMarkersResponse => {
      const markers: WriteTxnMarkersResponse["markers"] = [];
      done.forEach((status, i) => {
        const producerId = producerIds[i] as number;
        let marker = markers.find((m) => m.producerId === producerId);
        if (marker === undefined) {
          marker = { producerId, topics: [] };
          markers.push(marker);
        }
        let topic = marker.topics.find((t) => t.name === status.topic);
        if (topic === undefined) {
          topic = { name: status.topic, partitions: [] };
          marker.topics.push(topic);
        }
        topic.partitions.push({ partitionIndex: status.partition, errorCode: status.errorCode });
      });
      return { type: "WriteTxnMarkersResponse", correlationId: request.correlationId, markers };
    };
    this.#awaitReplication(from, statuses, ms(this.settings["request.timeout.ms"]), respond, ctx);
  }

  #appendMarker(
    topic: string,
    index: number,
    marker: WriteTxnMarkersRequest["markers"][number],
    controlType: (typeof ControlRecordType)[keyof typeof ControlRecordType],
    nowMs: number,
    ctx: Context,
  ): AppendOutcome {
    if (!this.metadataCache.contains(topic, index)) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
    const partition = this.hosted(topic, index);
    if (partition === undefined) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    const result = partition.appendMarkerToLeader(
      marker.producerId,
      marker.producerEpoch,
      { controlType, coordinatorEpoch: marker.coordinatorEpoch },
      nowMs,
      marker.transactionVersion,
    );
    const outcome = this.#appended(partition, result, ctx);
    if (outcome.errorCode === ErrorCode.NONE) {
      ctx.observe({
        type: "broker.txn-marker",
        topic,
        partition: index,
        producerId: marker.producerId,
        producerEpoch: marker.producerEpoch,
        committed: controlType === ControlRecordType.COMMIT,
        offset: outcome.baseOffset ?? -1,
      } satisfies BrokerTxnMarkerObservation);
    }
    return outcome;
  }

  #completeProduce(id: number, ctx: Context): void {
    const op = this.#producePurgatory.remove(id);
    if (op === undefined) return;
    ctx.cancelTimer(`${DELAYED_PRODUCE_TIMER}${id}`);
    ctx.send(op.replyTo, op.response());
  }

  // --- fetch ---

  /**
   * Fetch (Kafka's `handleFetchRequest` / `fetchMessages`): answered at once
   * if max wait <= 0, nothing readable was asked for, min bytes are there,
   * or a read failed; else parked until min bytes arrive or max wait ends.
   * max bytes = min(request, broker fetch.max.bytes); min bytes <= max bytes.
   */
  handleFetch(from: ActorId, request: FetchRequest, ctx: Context): void {
    const maxBytes = Math.min(request.maxBytes, this.settings["fetch.max.bytes"]);
    const params: FetchParams = {
      replicaId: request.replicaId,
      maxWaitMs: request.maxWaitMs,
      minBytes: Math.min(request.minBytes, maxBytes),
      maxBytes,
      isolationLevel: request.isolationLevel,
    };
    const context = this.#newFetchContext(request, ctx);
    if (context.kind === "session-error") {
      ctx.send(from, context.updateAndGenerateResponse([], ctx.now()));
      return;
    }
    const { interesting, erroneous } = this.#itemsOf(context);
    if (interesting.length === 0) {
      this.#sendFetchResponse(from, context, erroneous, request, ctx);
      return;
    }
    const stamp = this.#readStamp(params);
    const reads = this.#readFromLog(params, interesting, stamp, ctx);
    let bytesReadable = 0;
    let errorReading = false;
    for (let i = 0; i < reads.length; i++) {
      const read = reads[i] as PartitionReadResult;
      bytesReadable += readBytesOf(read);
      if (read.data.errorCode !== ErrorCode.NONE) errorReading = true;
    }
    if (params.maxWaitMs <= 0 || bytesReadable >= params.minBytes || errorReading) {
      this.#sendFetchResponse(from, context, withErroneous(reads, erroneous), request, ctx);
      return;
    }
    const op = new DelayedFetch(++this.#nextDelayedId, from, params, context, interesting, erroneous);
    this.#fetchPurgatory.watch(op);
    if (op.tryComplete(this.#hostedItem, stamp)) {
      this.#completeFetch(op.id, ctx);
      return;
    }
    ctx.setTimer(`${DELAYED_FETCH_TIMER}${op.id}`, ms(params.maxWaitMs));
  }

  /**
   * The partitions a fetch reads, in its context's order (Kafka's
   * `foreachPartition`), and those answered with an error at once (topic id
   * or partition unknown to the metadata). An incremental session's
   * partitions keep their resolved snapshot while their parameters and the
   * metadata stay the same.
   */
  #itemsOf(context: FetchContext): { interesting: DelayedFetchPartition[]; erroneous: PartitionReadResult[] } {
    const interesting: DelayedFetchPartition[] = [];
    const erroneous: PartitionReadResult[] = [];
    const metadataVersion = this.metadataCache.version;
    if (context instanceof IncrementalFetchContext) {
      for (const cached of context.session.partitions()) {
        const slot = cached.readSlot;
        if (slot instanceof DelayedFetchPartition && slot.metadataVersion === metadataVersion) {
          interesting.push(slot);
          continue;
        }
        const item = this.#resolve(cached.target(), cached, metadataVersion, erroneous);
        cached.readSlot = item ?? null;
        if (item !== undefined) interesting.push(item);
      }
    } else {
      for (const target of context.partitions()) {
        const item = this.#resolve(target, null, metadataVersion, erroneous);
        if (item !== undefined) interesting.push(item);
      }
    }
    return { interesting, erroneous };
  }

  /** A fetch item for a partition by topic id, or undefined after adding the error it is answered with to `erroneous`. */
  #resolve(
    target: FetchTarget,
    cached: CachedPartition | null,
    metadataVersion: number,
    erroneous: PartitionReadResult[],
  ): DelayedFetchPartition | undefined {
    const topic = this.metadataCache.topicName(target.topicId);
    if (topic === undefined) {
      erroneous.push({ topicId: target.topicId, data: errorPartition(target.partition, ErrorCode.UNKNOWN_TOPIC_ID) });
      return undefined;
    }
    if (!this.metadataCache.contains(topic, target.partition)) {
      erroneous.push({ topicId: target.topicId, data: errorPartition(target.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) });
      return undefined;
    }
    return new DelayedFetchPartition(topic, target, tpKey(topic, target.partition), cached, metadataVersion);
  }

  /** The partition a fetch item reads, if this broker hosts it (the Partition object of a key never changes once made). */
  readonly #hostedItem = (item: DelayedFetchPartition): Partition | undefined => {
    let partition = item.partition;
    if (partition === undefined) {
      partition = this.partition(item.topic, item.target.partition);
      item.partition = partition;
    }
    return partition !== undefined && partition.role !== "none" ? partition : undefined;
  };

  /**
   * What, besides a partition's own state, decides what a read of it finds:
   * the metadata version, the fetcher (a follower's id, or a consumer) and
   * the isolation level. Reads that were quiet under one stamp are quiet
   * again only under the same stamp.
   */
  #readStamp(params: FetchParams): number {
    // Injective for an int32 replica id and an int8 isolation level, and no string to build.
    const fetcher = params.replicaId * 256 + (params.isolationLevel & 0xff);
    let index = this.#fetcherStamps.get(fetcher);
    if (index === undefined) {
      index = this.#fetcherStamps.size;
      this.#fetcherStamps.set(fetcher, index);
    }
    return this.metadataCache.version * FETCHER_STAMPS + index;
  }

  #completeFetch(id: number, ctx: Context): void {
    const op = this.#fetchPurgatory.remove(id);
    if (op === undefined) return;
    ctx.cancelTimer(`${DELAYED_FETCH_TIMER}${id}`);
    const reads = this.#readFromLog(op.params, op.partitions, this.#readStamp(op.params), ctx);
    ctx.send(op.replyTo, op.context.updateAndGenerateResponse(withErroneous(reads, op.erroneous), ctx.now()));
  }

  /** Applies a fetch's session metadata (KIP-227) and reports what happened to sessions. */
  #newFetchContext(request: FetchRequest, ctx: Context): FetchContext {
    const cache = this.fetchManager.cache;
    const privileged = request.replicaId >= 0;
    const observe = (event: FetchSessionObservation["event"], sessionId: number, partitions: number, isPrivileged: boolean) => {
      const observation: FetchSessionObservation = { type: "broker.fetch-session", event, sessionId, partitions, privileged: isPrivileged };
      ctx.observe({ ...observation });
    };
    const named = request.sessionId !== INVALID_SESSION_ID ? cache.get(request.sessionId) : undefined;
    const namedSize = named?.size ?? 0;
    const namedPrivileged = named?.privileged ?? privileged;
    const context = this.fetchManager.newContext(request, ctx.now());
    if (context instanceof SessionErrorContext) {
      observe(
        context.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND ? "not-found" : "epoch-mismatch",
        request.sessionId,
        0,
        privileged,
      );
    } else if (named !== undefined && cache.get(request.sessionId) === undefined) {
      // A full request naming its session closes it; an incremental one that empties it drops it.
      observe("closed", request.sessionId, namedSize, namedPrivileged);
    }
    return context;
  }

  #sendFetchResponse(to: ActorId, context: FetchContext, reads: PartitionReadResult[], request: FetchRequest, ctx: Context): void {
    const cache = this.fetchManager.cache;
    const creating = context.kind === "full" && request.sessionEpoch === INITIAL_EPOCH;
    const before = creating && cache.shards.some((shard) => shard.size >= shard.maxEntries) ? this.#sessionsById() : undefined;
    const evictionsBefore = cache.evictions.count;
    const response: FetchResponse = context.updateAndGenerateResponse(reads, ctx.now());
    if (creating) {
      const privileged = request.replicaId >= 0;
      if (before !== undefined && cache.evictions.count > evictionsBefore) {
        for (const [id, session] of before) {
          if (cache.get(id) === undefined) {
            ctx.observe({
              type: "broker.fetch-session",
              event: "evicted",
              sessionId: id,
              partitions: session.size,
              privileged: session.privileged,
            });
          }
        }
      }
      ctx.observe({
        type: "broker.fetch-session",
        event: response.sessionId === INVALID_SESSION_ID ? "cache-full" : "created",
        sessionId: response.sessionId,
        partitions: reads.length,
        privileged,
      });
    }
    ctx.send(to, response);
  }

  #sessionsById(): Map<number, { size: number; privileged: boolean }> {
    const sessions = new Map<number, { size: number; privileged: boolean }>();
    for (const shard of this.fetchManager.cache.shards) {
      for (const session of shard.sessions()) sessions.set(session.id, { size: session.size, privileged: session.privileged });
    }
    return sessions;
  }

  /**
   * Reads the partitions in order with a shrinking budget (Kafka's
   * `readFromLog`): each partition gets min(its max bytes, what is left of
   * the request's max bytes). The first batch of the first partition that
   * returns data is returned whole even if it exceeds both (Fetch v3+);
   * after that the limits are strict.
   *
   * A partition of an incremental session whose read would find nothing new
   * (quiet: see CachedPartition.isQuiet) is not read: it returns no bytes,
   * and an incremental response leaves it out. A follower's fetch of it
   * still records the follower's fetch state, as every read does.
   */
  #readFromLog(params: FetchParams, partitions: readonly DelayedFetchPartition[], stamp: number, ctx: Context): PartitionReadResult[] {
    let limit = params.maxBytes;
    let minOneMessage = true;
    const reads: PartitionReadResult[] = [];
    const follower = isFromFollower(params);
    for (const item of partitions) {
      if (item.isQuiet(stamp)) {
        if (follower) this.#recordFollowerFetch(params, item, ctx);
        continue;
      }
      const read = this.#readPartition(params, item, Math.min(item.target.partitionMaxBytes, limit), minOneMessage, stamp, ctx);
      const size = readBytesOf(read);
      if (size > 0) minOneMessage = false;
      limit = Math.max(0, limit - size);
      reads.push(read);
    }
    return reads;
  }

  /**
   * One partition of a fetch (Kafka's `Partition.fetchRecords`): leader and
   * epoch checks, then a read up to the high watermark (consumers), the last
   * stable offset (read_committed consumers, who also get the aborted
   * transactions overlapping what was read) or the log end (followers). A follower's fetch offset is its log end: the
   * leader records it, which may add it to the ISR and move the high
   * watermark. Offsets and watermarks are taken before the read.
   */
  #readPartition(
    params: FetchParams,
    item: DelayedFetchPartition,
    maxBytes: number,
    minOneMessage: boolean,
    stamp: number,
    ctx: Context,
  ): PartitionReadResult {
    const { topic, target } = item;
    const partition = this.#hostedItem(item);
    if (partition === undefined) {
      return failedRead(
        target,
        this.metadataCache.contains(topic, target.partition) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      );
    }
    const epochError = partition.checkLeaderEpoch(target.currentLeaderEpoch, true);
    if (epochError !== ErrorCode.NONE) return failedRead(target, epochError);
    const follower = isFromFollower(params);
    if (follower && !partition.remoteReplicas.has(params.replicaId)) {
      return failedRead(target, target.currentLeaderEpoch >= 0 ? ErrorCode.UNKNOWN_LEADER_EPOCH : ErrorCode.NOT_LEADER_OR_FOLLOWER);
    }
    const version = partition.version;
    const log = partition.log;
    const highWatermark = log.highWatermark;
    const lastStableOffset = log.lastStableOffset;
    const logStartOffset = log.logStartOffset;
    const logEndOffset = log.logEndOffset;
    const readCommitted = !follower && params.isolationLevel === IsolationLevel.READ_COMMITTED;
    const upperBound = fetchUpperBound(params, log);
    const read = log.read(target.fetchOffset, maxBytes, upperBound, minOneMessage);
    if (read.outOfRange) return failedRead(target, ErrorCode.OFFSET_OUT_OF_RANGE);
    if (follower) this.#followerFetched(partition, params.replicaId, target, logEndOffset, ctx);
    return {
      topicId: target.topicId,
      data: {
        partitionIndex: target.partition,
        errorCode: ErrorCode.NONE,
        highWatermark,
        lastStableOffset,
        logStartOffset,
        abortedTransactions: readCommitted ? abortedTransactionsIn(log, target.fetchOffset, read.batches) : null,
        preferredReadReplica: NO_PREFERRED_READ_REPLICA,
        records: read.batches,
      },
      recordsBytes: read.bytes,
      // At its bound the fetch offset has nothing to read whatever the budget: the same read finds the same until the partition changes.
      quiet: target.fetchOffset === upperBound ? { source: partition, version, stamp } : undefined,
      cached: item.cached ?? undefined,
    };
  }

  /**
   * A follower's fetch of a quiet partition: what a read records of the
   * follower (its fetch state, which may add it to the ISR or move the high
   * watermark), without reading.
   */
  #recordFollowerFetch(params: FetchParams, item: DelayedFetchPartition, ctx: Context): void {
    const partition = this.#hostedItem(item);
    if (partition === undefined) throw new Error(`quiet partition ${item.key} is not hosted`);
    this.#followerFetched(partition, params.replicaId, item.target, partition.log.logEndOffset, ctx);
  }

  /** Kafka's `updateFollowerFetchState` after a follower's read; a high watermark it moves completes what waited for it. */
  #followerFetched(partition: Partition, replicaId: number, target: FetchTarget, leaderEndOffset: number, ctx: Context): void {
    const moved = partition.updateFollowerFetchState(replicaId, target.fetchOffset, target.logStartOffset, leaderEndOffset, ctx.now());
    if (moved) {
      this.#highWatermarkIncremented(partition, ctx);
      this.#partitionChanged(partition, ctx);
    }
  }

  // --- offsets ---

  /**
   * ListOffsets (Kafka's `fetchOffsetForTimestamp`): latest is the high
   * watermark for consumers (the last stable offset under read_committed)
   * and the log end for followers; earliest is the
   * log start. A new leader whose high watermark is still below the start of
   * its epoch answers OFFSET_NOT_AVAILABLE to consumers (KIP-207).
   */
  handleListOffsets(request: ListOffsetsRequest): ListOffsetsResponse {
    const fromReplica = request.replicaId >= 0;
    const seen = new Set<string>();
    const topics = request.topics.map((topic) => ({
      name: topic.name,
      partitions: topic.partitions.map((p) => {
        const fail = (errorCode: number) => ({ partitionIndex: p.partitionIndex, errorCode, timestamp: -1, offset: -1, leaderEpoch: -1 });
        const key = tpKey(topic.name, p.partitionIndex);
        if (seen.has(key)) return fail(ErrorCode.INVALID_REQUEST);
        seen.add(key);
        const partition = this.hosted(topic.name, p.partitionIndex);
        if (partition === undefined) {
          return fail(
            this.metadataCache.contains(topic.name, p.partitionIndex)
              ? ErrorCode.NOT_LEADER_OR_FOLLOWER
              : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          );
        }
        const epochError = partition.checkLeaderEpoch(p.currentLeaderEpoch, true);
        if (epochError !== ErrorCode.NONE) return fail(epochError);
        const log = partition.log;
        const readCommitted = request.isolationLevel === IsolationLevel.READ_COMMITTED;
        const lastFetchable = fromReplica ? log.logEndOffset : readCommitted ? log.lastStableOffset : log.highWatermark;
        const start = partition.leaderEpochStartOffset;
        const offsetsNotAvailable = !fromReplica && start !== null && start > log.highWatermark;
        const answer = (offset: number, leaderEpoch: number, timestamp = -1) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode.NONE,
          timestamp,
          offset,
          leaderEpoch,
        });
        switch (p.timestamp) {
          case ListOffsetsTimestamp.LATEST:
            return offsetsNotAvailable ? fail(ErrorCode.OFFSET_NOT_AVAILABLE) : answer(lastFetchable, partition.leaderEpoch);
          case ListOffsetsTimestamp.EARLIEST:
          case EARLIEST_LOCAL_TIMESTAMP:
            return answer(log.logStartOffset, log.epochCache.epochForOffset(log.logStartOffset) ?? UNDEFINED_EPOCH);
          default: {
            if (p.timestamp < 0) return fail(ErrorCode.INVALID_REQUEST);
            const found = log.offsetForTimestamp(p.timestamp);
            if (found !== undefined && found.offset < lastFetchable) return answer(found.offset, found.epoch, found.timestampMs);
            return offsetsNotAvailable ? fail(ErrorCode.OFFSET_NOT_AVAILABLE) : answer(-1, -1);
          }
        }
      }),
    }));
    return { type: "ListOffsetsResponse", correlationId: request.correlationId, throttleTimeMs: 0, topics };
  }

  /** OffsetForLeaderEpoch (Kafka's `lastOffsetForLeaderEpoch`), served by the leader only. */
  handleOffsetForLeaderEpoch(request: OffsetForLeaderEpochRequest): OffsetForLeaderEpochResponse {
    const topics = request.topics.map((topic) => ({
      topic: topic.topic,
      partitions: topic.partitions.map((p) => {
        const answer = (errorCode: number, leaderEpoch = UNDEFINED_EPOCH, endOffset = -1) => ({
          errorCode,
          partition: p.partition,
          leaderEpoch,
          endOffset,
        });
        const partition = this.hosted(topic.topic, p.partition);
        if (partition === undefined) {
          return answer(
            this.metadataCache.contains(topic.topic, p.partition) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          );
        }
        const epochError = partition.checkLeaderEpoch(p.currentLeaderEpoch, true);
        if (epochError !== ErrorCode.NONE) return answer(epochError);
        const found = partition.log.epochCache.endOffsetFor(p.leaderEpoch, partition.log.logEndOffset);
        return answer(ErrorCode.NONE, found.epoch, found.endOffset);
      }),
    }));
    return { type: "OffsetForLeaderEpochResponse", correlationId: request.correlationId, throttleTimeMs: 0, topics };
  }

  // --- periodic tasks ---

  /** Kafka's isr-expiration task. */
  maybeShrinkIsr(): void {
    for (const partition of this.#partitions.values()) partition.maybeShrinkIsr();
  }

  /** Kafka's highwatermark-checkpoint task. */
  checkpointHighWatermarks(): void {
    for (const partition of this.#partitions.values()) partition.log.checkpointHighWatermark();
  }

  /** Kafka's kafka-log-retention task, on every replica. */
  deleteOldSegments(ctx: Context): void {
    const nowMs = Math.floor(ctx.now() / 1000);
    for (const partition of this.#partitions.values()) {
      if (partition.role === "none") continue;
      if (partition.log.deleteOldSegments(nowMs, this.settings["log.retention.ms"], this.settings["log.retention.bytes"])) {
        this.#partitionChanged(partition, ctx);
      }
    }
  }

  /**
   * DeleteRecords on the leader (Kafka's `deleteRecordsOnLeader`): the log
   * start moves to `offset` (-1: the high watermark), never past the high
   * watermark. Returns the error code.
   */
  deleteRecords(topic: string, index: number, offset: number, ctx: Context): number {
    const partition = this.hosted(topic, index);
    if (partition === undefined || !partition.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    const target = offset === -1 ? partition.log.highWatermark : offset;
    if (target < 0 || target > partition.log.highWatermark) return ErrorCode.OFFSET_OUT_OF_RANGE;
    if (partition.log.maybeIncrementLogStartOffset(target)) this.#partitionChanged(partition, ctx);
    return ErrorCode.NONE;
  }

  /** Parked requests, for snapshots. */
  get parked(): { fetches: number; produces: number } {
    return { fetches: this.#fetchPurgatory.size, produces: this.#producePurgatory.size };
  }
}

/**
 * The aborted transactions a read_committed fetch needs (Kafka's
 * `LocalLog.addAbortedTransactions`): those with data from the fetch offset
 * up to the end of what was read; none when nothing was read.
 */
function abortedTransactionsIn(log: PartitionLog, fetchOffset: number, batches: readonly RecordBatch[]): AbortedTransaction[] {
  const last = batches[batches.length - 1];
  if (last === undefined) return [];
  return log.collectAbortedTransactions(fetchOffset, lastOffsetOf(last) + 1);
}

/** `ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP` (KIP-405): the local log start, which here is the log start. */
const EARLIEST_LOCAL_TIMESTAMP = -4;

/**
 * A failed verification's error in a produce response (Kafka's
 * `postVerificationCallback`): the coordinator's retriable errors become
 * NOT_ENOUGH_REPLICAS, which clients retry without a metadata refresh;
 * CONCURRENT_TRANSACTIONS stays as it is for a producer of transaction
 * version 2 (`addPartition`: it is common while the previous transaction
 * ends, and says so).
 */
function produceVerificationError(errorCode: number, operation: TransactionSupportedOperation): number {
  switch (errorCode) {
    case ErrorCode.CONCURRENT_TRANSACTIONS:
      return operation === "addPartition" ? errorCode : ErrorCode.NOT_ENOUGH_REPLICAS;
    case ErrorCode.NETWORK_EXCEPTION:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.NOT_COORDINATOR:
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    default:
      return errorCode;
  }
}
