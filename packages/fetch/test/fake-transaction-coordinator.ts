import {
  type Actor,
  type ActorId,
  type AddPartitionsToTxnBrokerRequest,
  addPartitionsToTxnBrokerResponse,
  type Context,
  CoordinatorKeyType,
  ErrorCode,
  type JsonValue,
  type Message,
  ms,
  type TopicPartition,
  type TxnOffsetCommitRequest,
  tpKey,
  type WriteTxnMarkersRequest,
  type WriteTxnMarkersResponse,
} from "@kcsim/protocol";

/**
 * A minimal transaction coordinator for the producer tests (not a test
 * file itself; the real one lives in another package): transaction
 * version 1 as Kafka's TransactionCoordinator does it, in memory.
 * - InitProducerId: a producer id per transactional id, the epoch bumped
 *   on every call (fencing older producers); an open transaction is first
 *   aborted with a bumped epoch (CONCURRENT_TRANSACTIONS until its markers
 *   are written).
 * - AddPartitionsToTxn / AddOffsetsToTxn: epoch checks (PRODUCER_FENCED),
 *   CONCURRENT_TRANSACTIONS while the previous transaction completes.
 * - EndTxn: answered once PREPARE is "logged" (at once), then WriteTxnMarkers
 *   to each partition's leader (leader of partition p: broker (p mod n);
 *   retried on the next broker after an error) and to the group coordinator
 *   for offsets; COMPLETE when all are written. A retried EndTxn of a
 *   completed transaction with the same outcome answers NONE.
 * - Transaction version 2 (KIP-890 part 2): a partition leader's
 *   AddPartitionsToTxn (verifyOnly false) adds partitions as the client's
 *   would (`__consumer_offsets` ones are the group coordinator's); EndTxn v5
 *   bumps the epoch first, so the markers carry the bumped epoch (and
 *   transactionVersion 2) and the answer carries it; an EndTxn v5 retried
 *   at the epoch before answers NONE with the current one; aborting with
 *   nothing in the transaction bumps the epoch, writing no marker. A
 *   verifyOnly request is answered from the transaction's partitions.
 */
/** The group coordinator's partitions (a transaction version 2 group coordinator adds one to the transaction itself). */
const GROUP_OFFSETS_TOPIC = "__consumer_offsets";

type TxnStatus = "Empty" | "Ongoing" | "PrepareCommit" | "PrepareAbort" | "CompleteCommit" | "CompleteAbort";

interface TxnMetadata {
  readonly producerId: number;
  epoch: number;
  status: TxnStatus;
  /** The transaction version of the transaction (2 once a leader or EndTxn v5 spoke version 2; its markers carry it). */
  transactionVersion: number;
  partitions: Map<string, TopicPartition>;
  groups: Set<string>;
  pendingMarkers: number;
}

interface PendingMarker {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly epoch: number;
  readonly committed: boolean;
  readonly topic: string;
  readonly partition: number;
  readonly transactionVersion: number;
  /** Which broker to try (partition + attempt, mod brokers). */
  attempt: number;
}

export interface FakeTransactionCoordinatorConfig {
  readonly brokers: readonly ActorId[];
  readonly groupCoordinator: ActorId | null;
  /** Where producer ids start. */
  readonly firstProducerId?: number;
}

export class FakeTransactionCoordinator implements Actor {
  readonly config: FakeTransactionCoordinatorConfig;
  readonly transactions = new Map<string, TxnMetadata>();
  /** Every EndTxn it answered NONE, in order. */
  readonly endTxns: { transactionalId: string; committed: boolean; epoch: number }[] = [];
  /** Errors the next AddPartitionsToTxn of partition leaders (adds or verifications) get, one per request, before any check. */
  readonly brokerRequestErrors: number[] = [];
  readonly #markers = new Map<number, PendingMarker>();
  #nextProducerId: number;
  #correlationId = 0;

  constructor(config: FakeTransactionCoordinatorConfig) {
    this.config = config;
    this.#nextProducerId = config.firstProducerId ?? 1;
  }

  start(): void {}

  receive(from: ActorId, message: Message, ctx: Context): void {
    switch (message.type) {
      case "FindCoordinatorRequest":
        ctx.send(from, {
          type: "FindCoordinatorResponse",
          correlationId: message.correlationId,
          throttleTimeMs: 0,
          coordinators: message.coordinatorKeys.map((key) => ({
            key,
            nodeId: 0,
            host: ctx.self,
            port: 0,
            errorCode: message.keyType === CoordinatorKeyType.TRANSACTION ? ErrorCode.NONE : ErrorCode.INVALID_REQUEST,
            errorMessage: null,
          })),
        });
        return;
      case "InitProducerIdRequest": {
        const errorCode = this.#initProducerId(message.transactionalId ?? "", message.producerId, message.producerEpoch, ctx);
        const meta = this.transactions.get(message.transactionalId ?? "");
        ctx.send(from, {
          type: "InitProducerIdResponse",
          correlationId: message.correlationId,
          throttleTimeMs: 0,
          errorCode,
          producerId: errorCode === ErrorCode.NONE ? (meta?.producerId ?? -1) : -1,
          producerEpoch: errorCode === ErrorCode.NONE ? (meta?.epoch ?? -1) : -1,
        });
        return;
      }
      case "AddPartitionsToTxnRequest": {
        const errorCode = this.#addToTransaction(message.transactionalId, message.producerId, message.producerEpoch, 0);
        const meta = this.transactions.get(message.transactionalId);
        if (errorCode === ErrorCode.NONE && meta !== undefined) {
          for (const t of message.topics)
            for (const p of t.partitions) meta.partitions.set(tpKey(t.name, p), { topic: t.name, partition: p });
        }
        ctx.send(from, {
          type: "AddPartitionsToTxnResponse",
          correlationId: message.correlationId,
          throttleTimeMs: 0,
          errorCode: ErrorCode.NONE,
          results: message.topics.map((t) => ({
            name: t.name,
            results: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: errorCode })),
          })),
        });
        return;
      }
      case "AddPartitionsToTxnBrokerRequest":
        ctx.send(from, this.#brokerAddPartitions(message));
        return;
      case "AddOffsetsToTxnRequest": {
        const errorCode = this.#addToTransaction(message.transactionalId, message.producerId, message.producerEpoch, 0);
        if (errorCode === ErrorCode.NONE) this.transactions.get(message.transactionalId)?.groups.add(message.groupId);
        ctx.send(from, { type: "AddOffsetsToTxnResponse", correlationId: message.correlationId, throttleTimeMs: 0, errorCode });
        return;
      }
      case "EndTxnRequest": {
        const answer =
          message.apiVersion >= 5
            ? this.#endTxnV2(message.transactionalId, message.producerId, message.producerEpoch, message.committed, ctx)
            : {
                errorCode: this.#endTxn(message.transactionalId, message.producerId, message.producerEpoch, message.committed, ctx),
                producerId: -1,
                producerEpoch: -1,
              };
        ctx.send(from, { type: "EndTxnResponse", correlationId: message.correlationId, throttleTimeMs: 0, ...answer });
        return;
      }
      case "WriteTxnMarkersResponse":
        this.#onMarkers(message, ctx);
        return;
      default:
    }
  }

  fire(timer: string, ctx: Context): void {
    const id = Number(timer.slice("marker-retry:".length));
    const marker = this.#markers.get(id);
    if (marker !== undefined) this.#sendMarker(id, marker, ctx);
  }

  #initProducerId(transactionalId: string, producerId: number, producerEpoch: number, ctx: Context): number {
    let meta = this.transactions.get(transactionalId);
    if (meta === undefined) {
      meta = {
        producerId: this.#nextProducerId++,
        epoch: 0,
        status: "Empty",
        transactionVersion: 0,
        partitions: new Map(),
        groups: new Set(),
        pendingMarkers: 0,
      };
      this.transactions.set(transactionalId, meta);
      return ErrorCode.NONE;
    }
    if (meta.status === "PrepareCommit" || meta.status === "PrepareAbort") return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (producerId >= 0 && (producerId !== meta.producerId || producerEpoch !== meta.epoch)) return ErrorCode.PRODUCER_FENCED;
    if (meta.status === "Ongoing") {
      // Fence the producer of the open transaction and abort it first.
      meta.epoch++;
      this.#complete(transactionalId, meta, false, ctx);
      return ErrorCode.CONCURRENT_TRANSACTIONS;
    }
    meta.epoch++;
    meta.status = "Empty";
    return ErrorCode.NONE;
  }

  #addToTransaction(transactionalId: string, producerId: number, producerEpoch: number, transactionVersion: number): number {
    const meta = this.transactions.get(transactionalId);
    if (meta === undefined || meta.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (producerEpoch !== meta.epoch) return ErrorCode.PRODUCER_FENCED;
    if (meta.status === "PrepareCommit" || meta.status === "PrepareAbort") return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (meta.status !== "Ongoing") {
      meta.status = "Ongoing";
      meta.transactionVersion = transactionVersion;
      meta.partitions = new Map();
      meta.groups = new Set();
    }
    return ErrorCode.NONE;
  }

  /** A partition leader's (or group coordinator's) AddPartitionsToTxn: adds (transaction version 2), or verifies. */
  #brokerAddPartitions(request: AddPartitionsToTxnBrokerRequest): Message {
    const scripted = this.brokerRequestErrors.shift();
    return addPartitionsToTxnBrokerResponse(request, (transaction) => {
      const meta = this.transactions.get(transaction.transactionalId);
      let errorCode: number;
      if (scripted !== undefined) {
        errorCode = scripted;
      } else if (transaction.verifyOnly) {
        errorCode =
          meta?.producerId !== transaction.producerId || meta.epoch !== transaction.producerEpoch
            ? ErrorCode.PRODUCER_FENCED
            : ErrorCode.NONE;
      } else {
        errorCode = this.#addToTransaction(transaction.transactionalId, transaction.producerId, transaction.producerEpoch, 2);
        if (errorCode === ErrorCode.NONE && meta !== undefined) {
          for (const t of transaction.topics)
            for (const p of t.partitions) meta.partitions.set(tpKey(t.name, p), { topic: t.name, partition: p });
        }
      }
      return (topic, partition) =>
        errorCode === ErrorCode.NONE && transaction.verifyOnly && meta?.partitions.has(tpKey(topic, partition)) !== true
          ? ErrorCode.TRANSACTION_ABORTABLE
          : errorCode;
    });
  }

  /**
   * EndTxn v5 (Kafka's `endTransaction` for transaction version 2): the
   * epoch is bumped before the markers are written, and the answer carries
   * it; a retry at the epoch before of a completed transaction with the
   * same outcome answers NONE with the current one.
   */
  #endTxnV2(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    committed: boolean,
    ctx: Context,
  ): { errorCode: number; producerId: number; producerEpoch: number } {
    const meta = this.transactions.get(transactionalId);
    const fail = (errorCode: number) => ({ errorCode, producerId: -1, producerEpoch: -1 });
    if (meta === undefined || meta.producerId !== producerId) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const done = () => ({ errorCode: ErrorCode.NONE, producerId: meta.producerId, producerEpoch: meta.epoch });
    if (meta.status === "PrepareCommit" || meta.status === "PrepareAbort") return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    if (producerEpoch === meta.epoch - 1 && (meta.status === "CompleteCommit" || meta.status === "CompleteAbort")) {
      return (meta.status === "CompleteCommit") === committed ? done() : fail(ErrorCode.INVALID_TXN_STATE);
    }
    if (producerEpoch !== meta.epoch) return fail(ErrorCode.PRODUCER_FENCED);
    if (meta.status !== "Ongoing") {
      if (committed) return fail(ErrorCode.INVALID_TXN_STATE);
      // An abort with nothing added: the epoch is bumped, no marker is written.
      meta.epoch++;
      meta.status = "CompleteAbort";
      return done();
    }
    meta.epoch++;
    meta.transactionVersion = 2;
    this.#complete(transactionalId, meta, committed, ctx);
    this.endTxns.push({ transactionalId, committed, epoch: producerEpoch });
    return done();
  }

  #endTxn(transactionalId: string, producerId: number, producerEpoch: number, committed: boolean, ctx: Context): number {
    const meta = this.transactions.get(transactionalId);
    if (meta === undefined || meta.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (producerEpoch !== meta.epoch) return ErrorCode.PRODUCER_FENCED;
    switch (meta.status) {
      case "Ongoing":
        this.#complete(transactionalId, meta, committed, ctx);
        this.endTxns.push({ transactionalId, committed, epoch: producerEpoch });
        return ErrorCode.NONE;
      case "CompleteCommit":
        return committed ? ErrorCode.NONE : ErrorCode.INVALID_TXN_STATE;
      case "CompleteAbort":
        return committed ? ErrorCode.INVALID_TXN_STATE : ErrorCode.NONE;
      case "PrepareCommit":
      case "PrepareAbort":
        return ErrorCode.CONCURRENT_TRANSACTIONS;
      default:
        return ErrorCode.INVALID_TXN_STATE;
    }
  }

  /** PREPARE: markers to every partition and group of the transaction; COMPLETE once they are all written. */
  #complete(transactionalId: string, meta: TxnMetadata, committed: boolean, ctx: Context): void {
    meta.status = committed ? "PrepareCommit" : "PrepareAbort";
    const targets: { topic: string; partition: number }[] = [...meta.partitions.values()];
    // A group coordinator's own add (transaction version 2) names its __consumer_offsets partition.
    for (const group of meta.groups) targets.push({ topic: `__group:${group}`, partition: 0 });
    meta.pendingMarkers = targets.length;
    if (targets.length === 0) {
      meta.status = committed ? "CompleteCommit" : "CompleteAbort";
      return;
    }
    for (const target of targets) {
      const id = ++this.#correlationId;
      const marker: PendingMarker = {
        transactionalId,
        producerId: meta.producerId,
        epoch: meta.epoch,
        committed,
        ...target,
        transactionVersion: meta.transactionVersion,
        attempt: 0,
      };
      this.#markers.set(id, marker);
      this.#sendMarker(id, marker, ctx);
    }
  }

  #sendMarker(id: number, marker: PendingMarker, ctx: Context): void {
    const isGroup = marker.topic.startsWith("__group:") || marker.topic === GROUP_OFFSETS_TOPIC;
    const brokers = this.config.brokers;
    const to = isGroup ? this.config.groupCoordinator : (brokers[(marker.partition + marker.attempt) % brokers.length] as ActorId);
    if (to === null) return;
    const request: WriteTxnMarkersRequest = {
      type: "WriteTxnMarkersRequest",
      correlationId: id,
      apiVersion: marker.transactionVersion >= 2 ? 2 : 1,
      clientId: ctx.self,
      markers: [
        {
          producerId: marker.producerId,
          producerEpoch: marker.epoch,
          transactionResult: marker.committed,
          topics: [{ name: isGroup ? GROUP_OFFSETS_TOPIC : marker.topic, partitionIndexes: [marker.partition] }],
          coordinatorEpoch: 0,
          transactionVersion: marker.transactionVersion,
        },
      ],
    };
    ctx.send(to, request);
    ctx.setTimer(`marker-retry:${id}`, ms(1000));
  }

  #onMarkers(response: WriteTxnMarkersResponse, ctx: Context): void {
    const marker = this.#markers.get(response.correlationId);
    if (marker === undefined) return;
    const errorCode = response.markers[0]?.topics[0]?.partitions[0]?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    if (errorCode !== ErrorCode.NONE) {
      marker.attempt++;
      ctx.setTimer(`marker-retry:${response.correlationId}`, ms(50));
      return;
    }
    ctx.cancelTimer(`marker-retry:${response.correlationId}`);
    this.#markers.delete(response.correlationId);
    const meta = this.transactions.get(marker.transactionalId);
    if (meta === undefined) return;
    meta.pendingMarkers--;
    if (meta.pendingMarkers === 0) meta.status = marker.committed ? "CompleteCommit" : "CompleteAbort";
  }
}

/**
 * A minimal group coordinator for sendOffsetsToTransaction: answers
 * FindCoordinator(GROUP) with itself; TxnOffsetCommit keeps the offsets
 * pending per producer id (ILLEGAL_GENERATION when the generation is not
 * `generation`, unless that is -1; the errors queued in `txnOffsetCommitErrors`
 * first, one per request); a COMMIT marker makes them committed, an ABORT
 * drops them. A TxnOffsetCommit v5 (transaction version 2) first has its
 * `__consumer_offsets` partition 0 added to the transaction by
 * `transactionCoordinator` (AddPartitionsToTxn, verifyOnly false); an error
 * there is the answer.
 */
export class FakeGroupCoordinator implements Actor {
  generation = -1;
  /** Errors the next TxnOffsetCommits get, in order (nothing is written for them). */
  readonly txnOffsetCommitErrors: number[] = [];
  readonly committed = new Map<string, number>();
  readonly #pending = new Map<number, Map<string, number>>();
  readonly #transactionCoordinator: ActorId | null;
  /** TxnOffsetCommit v5 requests waiting for their add, by the add's correlation id. */
  readonly #adding = new Map<number, { readonly from: ActorId; readonly request: TxnOffsetCommitRequest }>();
  #correlationId = 0;

  constructor(transactionCoordinator: ActorId | null = null) {
    this.#transactionCoordinator = transactionCoordinator;
  }

  start(): void {}

  receive(from: ActorId, message: Message, ctx: Context): void {
    switch (message.type) {
      case "FindCoordinatorRequest":
        ctx.send(from, {
          type: "FindCoordinatorResponse",
          correlationId: message.correlationId,
          throttleTimeMs: 0,
          coordinators: message.coordinatorKeys.map((key) => ({
            key,
            nodeId: 0,
            host: ctx.self,
            port: 0,
            errorCode: 0,
            errorMessage: null,
          })),
        });
        return;
      case "TxnOffsetCommitRequest": {
        const coordinator = this.#transactionCoordinator;
        if (message.apiVersion >= 5 && coordinator !== null) {
          const correlationId = ++this.#correlationId;
          this.#adding.set(correlationId, { from, request: message });
          ctx.send(coordinator, {
            type: "AddPartitionsToTxnBrokerRequest",
            correlationId,
            apiVersion: 5,
            clientId: ctx.self,
            transactions: [
              {
                transactionalId: message.transactionalId,
                producerId: message.producerId,
                producerEpoch: message.producerEpoch,
                verifyOnly: false,
                topics: [{ name: GROUP_OFFSETS_TOPIC, partitions: [0] }],
              },
            ],
          });
          return;
        }
        this.#commitTransactionalOffsets(from, message, null, ctx);
        return;
      }
      case "AddPartitionsToTxnBrokerResponse": {
        const adding = this.#adding.get(message.correlationId);
        if (adding === undefined) return;
        this.#adding.delete(message.correlationId);
        const errorCode =
          message.errorCode !== ErrorCode.NONE
            ? message.errorCode
            : (message.resultsByTransaction[0]?.topicResults[0]?.resultsByPartition[0]?.partitionErrorCode ?? ErrorCode.NONE);
        this.#commitTransactionalOffsets(adding.from, adding.request, errorCode === ErrorCode.NONE ? null : errorCode, ctx);
        return;
      }
      case "WriteTxnMarkersRequest":
        for (const marker of message.markers) {
          const pending = this.#pending.get(marker.producerId);
          this.#pending.delete(marker.producerId);
          if (marker.transactionResult && pending !== undefined) for (const [key, offset] of pending) this.committed.set(key, offset);
        }
        ctx.send(from, {
          type: "WriteTxnMarkersResponse",
          correlationId: message.correlationId,
          markers: message.markers.map((m) => ({
            producerId: m.producerId,
            topics: m.topics.map((t) => ({
              name: t.name,
              partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, errorCode: 0 })),
            })),
          })),
        });
        return;
      default:
    }
  }

  fire(): void {}

  /** Keeps a TxnOffsetCommit's offsets pending for its producer (or refuses them with `refusal`) and answers it. */
  #commitTransactionalOffsets(from: ActorId, message: TxnOffsetCommitRequest, refusal: number | null, ctx: Context): void {
    const queued = this.txnOffsetCommitErrors.shift();
    const error =
      refusal ??
      queued ??
      (this.generation === -1 || message.generationId === this.generation ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION);
    const ok = error === ErrorCode.NONE;
    if (ok) {
      const pending = this.#pending.get(message.producerId) ?? new Map<string, number>();
      for (const t of message.topics) for (const p of t.partitions) pending.set(tpKey(t.name, p.partitionIndex), p.committedOffset);
      this.#pending.set(message.producerId, pending);
    }
    ctx.send(from, {
      type: "TxnOffsetCommitResponse",
      correlationId: message.correlationId,
      throttleTimeMs: 0,
      topics: message.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: error,
        })),
      })),
    });
  }
}

export function createFakeTransactionCoordinator(
  config: FakeTransactionCoordinatorConfig,
): (id: ActorId, json: JsonValue) => FakeTransactionCoordinator {
  return () => new FakeTransactionCoordinator(config);
}

/** A FakeGroupCoordinator factory; with `transactionCoordinator`, TxnOffsetCommit v5 adds its partition there first. */
export function createFakeGroupCoordinator(
  transactionCoordinator: ActorId | null = null,
): (id: ActorId, json: JsonValue) => FakeGroupCoordinator {
  return () => new FakeGroupCoordinator(transactionCoordinator);
}
