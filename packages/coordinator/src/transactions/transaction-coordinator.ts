import {
  type AddOffsetsToTxnRequest,
  type AddOffsetsToTxnResponse,
  type AddPartitionsToTxnBrokerRequest,
  type AddPartitionsToTxnBrokerResponse,
  type AddPartitionsToTxnRequest,
  type AddPartitionsToTxnResponse,
  addPartitionsToTxnBrokerResponse,
  type Context,
  type EndTxnRequest,
  type EndTxnResponse,
  ErrorCode,
  errorName,
  GROUP_METADATA_TOPIC_NAME,
  type InitProducerIdRequest,
  type InitProducerIdResponse,
  partitionFor,
  supportsEpochBump,
  type TransactionVersion,
  tpKey,
} from "@kcsim/protocol";
import type { MetadataImage } from "../metadata/metadata-image.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import { decideEndTransactionV2 } from "./end-transaction-v2.js";
import type { ProducerIdManager } from "./producer-id-manager.js";
import type { TransactionCoordinatorConfig } from "./transaction-coordinator-config.js";
import {
  isEpochExhausted,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type PreparedTransition,
  SHORT_MAX_VALUE,
  TransactionMetadata,
  type TxnTransitMetadata,
} from "./transaction-metadata.js";
import { transactionMarkerObservation, transactionStateObservation } from "./transaction-observations.js";
import { addOffsetsToTxnResponse, addPartitionsToTxnResponse, endTxnResponse, initProducerIdResponse } from "./transaction-responses.js";
import type { TransactionStateManager } from "./transaction-state-manager.js";
import { transactionVersionForAddPartitionsToTxn, transactionVersionForEndTxn } from "./transaction-version.js";
import type { MarkerResult, TxnMarkerChannel } from "./txn-marker-channel.js";

/** A producer id and epoch a producer asks InitProducerId to continue from (KIP-360). */
interface ProducerIdAndEpoch {
  readonly producerId: number;
  readonly epoch: number;
}

/** The answer to an EndTxn: its error, and (transaction version 2, on success) the producer id and epoch to continue with, else -1/-1. */
interface EndTxnOutcome {
  readonly errorCode: number;
  readonly producerId: number;
  readonly producerEpoch: number;
}

/** An answer without a producer id and epoch (-1/-1): every error, and any answer before transaction version 2. */
function answerWithoutProducer(errorCode: number): EndTxnOutcome {
  return { errorCode, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
}

/** Marker errors after which the partition's marker is sent again (to a leader looked up afresh). */
const RETRIABLE_MARKER_ERRORS = new Set<number>([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.NOT_ENOUGH_REPLICAS,
  ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.NETWORK_EXCEPTION,
  // What a group coordinator says while it loads or after its partition moved (Kafka turns these into NOT_LEADER_OR_FOLLOWER).
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
]);

/** Marker errors that end the sending of the transaction's markers: its producer or this coordinator was fenced. */
const FENCED_MARKER_ERRORS = new Set<number>([ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.TRANSACTION_COORDINATOR_FENCED]);

/** Marker errors after which the partition no longer waits for its marker (the producer cannot have written to it). */
const SKIPPED_MARKER_ERRORS = new Set<number>([ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT, ErrorCode.UNSUPPORTED_VERSION]);

/**
 * The transaction coordinator's request handling (Kafka's
 * `TransactionCoordinator`, core/.../transaction/TransactionCoordinator.scala,
 * as of Kafka 4.2): InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn,
 * EndTxn, the abort of timed-out transactions, and the completion of a
 * transaction once all its markers are written. Requests of transaction
 * version 2 (KIP-890 part 2: EndTxn v5, a broker's AddPartitionsToTxn that
 * adds) take its paths; the others the paths of the versions before it,
 * and so do the aborts the coordinator starts itself unless the cluster's
 * transaction.version (config `transactionVersion`) is 2. Appends are
 * synchronous here, so a transition is prepared, written and applied within
 * the handling of one request; the only transitions that stay pending
 * across events are the completions waiting for markers.
 */
export class TransactionCoordinator {
  /** CompleteCommit/CompleteAbort transits waiting for their markers, by transactional id. */
  readonly #pendingCompletions = new Map<string, TxnTransitMetadata>();

  constructor(
    readonly config: TransactionCoordinatorConfig,
    readonly txnManager: TransactionStateManager,
    readonly producerIds: ProducerIdManager,
    readonly markers: TxnMarkerChannel,
    readonly image: MetadataImage,
  ) {}

  // ---- InitProducerId ----

  /**
   * `handleInitProducerId`: a null transactional id gets a fresh producer id
   * at epoch 0 (an idempotent producer); otherwise the id's producer epoch
   * is bumped (a first init gets a new producer id at epoch 0), fencing any
   * older producer with the same transactional id. An ongoing transaction
   * is aborted first (its epoch bumped) and the caller gets
   * CONCURRENT_TRANSACTIONS to retry; so does one whose markers are still
   * being written.
   */
  handleInitProducerId(ctx: Context, request: InitProducerIdRequest): InitProducerIdResponse {
    const { transactionalId, transactionTimeoutMs } = request;
    let expected: ProducerIdAndEpoch | null;
    if (request.producerId === NO_PRODUCER_ID && request.producerEpoch === NO_PRODUCER_EPOCH) expected = null;
    else if (request.producerId === NO_PRODUCER_ID || request.producerEpoch === NO_PRODUCER_EPOCH)
      return initProducerIdResponse(request, ErrorCode.INVALID_REQUEST);
    else expected = { producerId: request.producerId, epoch: request.producerEpoch };

    if (transactionalId === null) {
      return initProducerIdResponse(request, ErrorCode.NONE, this.producerIds.generateProducerId(ctx.storage), 0);
    }
    if (transactionalId === "") return initProducerIdResponse(request, ErrorCode.INVALID_REQUEST);
    if (transactionTimeoutMs <= 0 || transactionTimeoutMs > this.config.broker["transaction.max.timeout.ms"]) {
      return initProducerIdResponse(request, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    }
    const lookup = this.txnManager.getTransactionState(transactionalId);
    if ("errorCode" in lookup) return initProducerIdResponse(request, lookup.errorCode);
    let metadata = lookup.metadata;
    if (metadata === undefined) {
      metadata = new TransactionMetadata(transactionalId, {
        producerId: this.producerIds.generateProducerId(ctx.storage),
        lastProducerId: NO_PRODUCER_ID,
        nextProducerId: NO_PRODUCER_ID,
        producerEpoch: NO_PRODUCER_EPOCH,
        lastProducerEpoch: NO_PRODUCER_EPOCH,
        txnTimeoutMs: transactionTimeoutMs,
        state: "Empty",
        topicPartitions: [],
        txnStartTimestamp: -1,
        txnLastUpdateTimestamp: nowMs(ctx),
        clientTransactionVersion: 0,
      });
      this.txnManager.putTransactionState(metadata);
    }
    const prepared = this.#prepareInitProducerIdTransit(ctx, metadata, transactionTimeoutMs, expected);
    if ("errorCode" in prepared) return initProducerIdResponse(request, prepared.errorCode);
    const { transit } = prepared;
    if (transit.txnState === "PrepareEpochFence") {
      // Abort the ongoing transaction at the bumped epoch (under the cluster's transaction version); the producer
      // retries and gets the next epoch.
      const { errorCode } = this.#endTransaction(
        ctx,
        transactionalId,
        transit.producerId,
        transit.producerEpoch,
        false,
        false,
        this.config.transactionVersion,
      );
      return initProducerIdResponse(request, errorCode !== ErrorCode.NONE ? errorCode : ErrorCode.CONCURRENT_TRANSACTIONS);
    }
    this.txnManager.appendTransactionToLog(ctx, metadata, transit);
    ctx.log.info("initialized transactional id", { transactionalId, producerId: transit.producerId, producerEpoch: transit.producerEpoch });
    return initProducerIdResponse(request, ErrorCode.NONE, transit.producerId, transit.producerEpoch);
  }

  /** Kafka's `prepareInitProducerIdTransit`. */
  #prepareInitProducerIdTransit(
    ctx: Context,
    metadata: TransactionMetadata,
    transactionTimeoutMs: number,
    expected: ProducerIdAndEpoch | null,
  ): PreparedTransition {
    // A producer may continue from its id and epoch when the id has no epoch yet, it is the current id, or it is
    // the previous id whose epochs ran out (a retry after a rotation whose answer was lost).
    const isValidProducerId = (candidate: ProducerIdAndEpoch): boolean =>
      metadata.producerEpoch === NO_PRODUCER_EPOCH ||
      candidate.producerId === metadata.producerId ||
      (candidate.producerId === metadata.lastProducerId && isEpochExhausted(candidate.epoch));
    if (metadata.pendingTransitionInProgress) return { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS };
    if (expected !== null && !isValidProducerId(expected)) return { errorCode: ErrorCode.PRODUCER_FENCED };
    switch (metadata.state) {
      case "PrepareAbort":
      case "PrepareCommit":
        return { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS };
      case "CompleteAbort":
      case "CompleteCommit":
      case "Empty":
        if (metadata.isProducerEpochExhausted && (expected === null || expected.epoch === metadata.producerEpoch)) {
          const newProducerId = this.producerIds.generateProducerId(ctx.storage);
          return { transit: metadata.prepareProducerIdRotation(newProducerId, transactionTimeoutMs, nowMs(ctx), expected !== null) };
        }
        return metadata.prepareIncrementProducerEpoch(transactionTimeoutMs, expected?.epoch ?? null, nowMs(ctx));
      case "Ongoing":
        // Fence: bump the epoch and abort; that epoch is never returned, the retry bumps it once more.
        return { transit: this.#prepareFenceProducerEpoch(ctx, metadata) };
      case "Dead":
      case "PrepareEpochFence":
        throw new IllegalStateError(
          `Found transactionalId ${metadata.transactionalId} with state ${metadata.state}. This is illegal as we should never have transitioned to this state.`,
        );
    }
  }

  // ---- AddPartitionsToTxn / AddOffsetsToTxn ----

  /**
   * AddPartitionsToTxn v3 (KafkaApis, then `handleAddPartitionsToTransaction`):
   * partitions the metadata does not know get UNKNOWN_TOPIC_OR_PARTITION and
   * the others OPERATION_NOT_ATTEMPTED; otherwise the coordinator's one
   * answer goes to every partition.
   */
  handleAddPartitionsToTxnRequest(ctx: Context, request: AddPartitionsToTxnRequest): AddPartitionsToTxnResponse {
    const unknown = this.#unknownPartitionErrors(request.topics);
    if (unknown !== null) return addPartitionsToTxnResponse(request, unknown);
    const error = this.handleAddPartitionsToTransaction(
      ctx,
      request.transactionalId,
      request.producerId,
      request.producerEpoch,
      tpKeysOf(request.topics),
      0,
    );
    return addPartitionsToTxnResponse(request, () => error);
  }

  /**
   * AddOffsetsToTxn: the group's `__consumer_offsets` partition
   * (partitionFor(groupId, offsets.topic.num.partitions)) joins the
   * transaction, so that its markers reach the group coordinator.
   */
  handleAddOffsetsToTxn(ctx: Context, request: AddOffsetsToTxnRequest): AddOffsetsToTxnResponse {
    const partition = partitionFor(request.groupId, this.config.broker["offsets.topic.num.partitions"]);
    // Always transaction version 0: a client of version 2 sends no AddOffsetsToTxn (KafkaApis#handleAddOffsetsToTxnRequest).
    const error = this.handleAddPartitionsToTransaction(
      ctx,
      request.transactionalId,
      request.producerId,
      request.producerEpoch,
      [tpKey(GROUP_METADATA_TOPIC_NAME, partition)],
      0,
    );
    return addOffsetsToTxnResponse(request, error);
  }

  /**
   * AddPartitionsToTxn v4, from a broker (KafkaApis'
   * `handleAddPartitionsToTxnRequest`): each transaction of the batch is
   * answered on its own. A partition the metadata does not know fails the
   * transaction (UNKNOWN_TOPIC_OR_PARTITION, OPERATION_NOT_ATTEMPTED for
   * its other partitions); otherwise a verify-only transaction is checked
   * (`handleVerifyPartitionsInTransaction`) and any other one added to,
   * under transaction version 2 (`transactionVersionForAddPartitionsToTxn`:
   * a leader's implicit add for a client of that version).
   */
  handleAddPartitionsToTxnBrokerRequest(ctx: Context, request: AddPartitionsToTxnBrokerRequest): AddPartitionsToTxnBrokerResponse {
    const version = transactionVersionForAddPartitionsToTxn(request.apiVersion);
    return addPartitionsToTxnBrokerResponse(request, (transaction) => this.#brokerTransactionErrors(ctx, transaction, version));
  }

  /** One transaction of a broker's AddPartitionsToTxn: the error of each of its partitions. */
  #brokerTransactionErrors(
    ctx: Context,
    transaction: AddPartitionsToTxnBrokerRequest["transactions"][number],
    clientTransactionVersion: TransactionVersion,
  ): (topic: string, partition: number) => number {
    const unknown = this.#unknownPartitionErrors(transaction.topics);
    if (unknown !== null) return unknown;
    const { transactionalId, producerId, producerEpoch } = transaction;
    if (transaction.verifyOnly) {
      const errors = this.handleVerifyPartitionsInTransaction(transactionalId, producerId, producerEpoch, tpKeysOf(transaction.topics));
      return (topic, partition) => errors.get(tpKey(topic, partition)) ?? ErrorCode.NONE;
    }
    const error = this.handleAddPartitionsToTransaction(
      ctx,
      transactionalId,
      producerId,
      producerEpoch,
      tpKeysOf(transaction.topics),
      clientTransactionVersion,
    );
    return () => error;
  }

  /**
   * Kafka's `handleVerifyPartitionsInTransaction` (KIP-890 part 1): is each
   * partition (tpKey) part of the producer's ongoing transaction? NONE if
   * it is, TRANSACTION_ABORTABLE if not; the whole transaction gets
   * INVALID_PRODUCER_ID_MAPPING for another producer id, PRODUCER_FENCED
   * for another epoch, CONCURRENT_TRANSACTIONS while the transaction ends,
   * NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS from the lookup. A
   * pending transition is not looked at: the append checks again.
   */
  handleVerifyPartitionsInTransaction(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    partitions: readonly string[],
  ): Map<string, number> {
    const all = (errorCode: number): Map<string, number> => new Map(partitions.map((tp) => [tp, errorCode]));
    if (transactionalId === "") return all(ErrorCode.INVALID_REQUEST);
    const lookup = this.txnManager.getTransactionState(transactionalId);
    if ("errorCode" in lookup) return all(lookup.errorCode);
    const metadata = lookup.metadata;
    if (metadata === undefined || metadata.producerId !== producerId) return all(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (metadata.producerEpoch !== producerEpoch) return all(ErrorCode.PRODUCER_FENCED);
    if (metadata.state === "PrepareCommit" || metadata.state === "PrepareAbort") return all(ErrorCode.CONCURRENT_TRANSACTIONS);
    return new Map(partitions.map((tp) => [tp, metadata.topicPartitions.has(tp) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE]));
  }

  /**
   * Kafka's `handleAddPartitionsToTransaction`: Ongoing with the partitions
   * added (a new transaction from Empty or Complete*), at the producer's
   * own epoch: never a bump, for any version. The transaction takes
   * `clientTransactionVersion`. Version 2 looks at a pending transition
   * first, as Kafka 4.x does (the producer may be using a producer id still
   * pending over an epoch overflow); version 0 keeps the order of the
   * versions before it.
   */
  handleAddPartitionsToTransaction(
    ctx: Context,
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    partitions: readonly string[],
    clientTransactionVersion: TransactionVersion,
  ): number {
    if (transactionalId === "") return ErrorCode.INVALID_REQUEST;
    const lookup = this.txnManager.getTransactionState(transactionalId);
    if ("errorCode" in lookup) return lookup.errorCode;
    const metadata = lookup.metadata;
    if (metadata === undefined) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (supportsEpochBump(clientTransactionVersion) && metadata.pendingTransitionInProgress) return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (metadata.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (metadata.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    if (metadata.pendingTransitionInProgress) return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (metadata.state === "PrepareCommit" || metadata.state === "PrepareAbort") return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (metadata.state === "Ongoing" && partitions.every((tp) => metadata.topicPartitions.has(tp))) return ErrorCode.NONE;
    this.txnManager.appendTransactionToLog(ctx, metadata, metadata.prepareAddPartitions(partitions, nowMs(ctx), clientTransactionVersion));
    return ErrorCode.NONE;
  }

  // ---- EndTxn ----

  /**
   * EndTxn from the producer: commit or abort its transaction, under
   * transaction version 2 from v5 (`transactionVersionForEndTxn`).
   */
  handleEndTransaction(ctx: Context, request: EndTxnRequest): EndTxnResponse {
    const version = transactionVersionForEndTxn(request.apiVersion);
    const { transactionalId, producerId, producerEpoch, committed } = request;
    const outcome = this.#endTransaction(ctx, transactionalId, producerId, producerEpoch, committed, true, version);
    return endTxnResponse(request, outcome.errorCode, outcome.producerId, outcome.producerEpoch);
  }

  /** Kafka's `endTransaction`: the path of transaction version 2, or the one before it (answered -1/-1). */
  #endTransaction(
    ctx: Context,
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    committed: boolean,
    isFromClient: boolean,
    clientTransactionVersion: TransactionVersion,
  ): EndTxnOutcome {
    if (supportsEpochBump(clientTransactionVersion)) {
      return this.#endTransactionV2(ctx, transactionalId, producerId, producerEpoch, committed, isFromClient, clientTransactionVersion);
    }
    return answerWithoutProducer(this.#endTransactionWithTV1(ctx, transactionalId, producerId, producerEpoch, committed, isFromClient));
  }

  /**
   * Kafka's `endTransactionWithTV1`: PrepareCommit/PrepareAbort is written (the
   * answer is NONE from then on), then the markers go out; CompleteCommit /
   * CompleteAbort follows when they are all written. A retried EndTxn of a
   * completed transaction is NONE; of one still writing markers,
   * CONCURRENT_TRANSACTIONS; the opposite decision, INVALID_TXN_STATE. From
   * the coordinator itself (a fence or a timeout) the epoch may be newer
   * than the stored one: the bumped epoch of a pending PrepareEpochFence,
   * which the PrepareAbort takes.
   */
  #endTransactionWithTV1(
    ctx: Context,
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    committed: boolean,
    isFromClient: boolean,
  ): number {
    if (transactionalId === "") return ErrorCode.INVALID_REQUEST;
    const lookup = this.txnManager.getTransactionState(transactionalId);
    if ("errorCode" in lookup) return lookup.errorCode;
    const metadata = lookup.metadata;
    if (metadata === undefined) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    const error = this.#prepareEndTransaction(ctx, metadata, producerId, producerEpoch, committed, isFromClient);
    if (metadata.pendingState === "PrepareEpochFence") metadata.pendingState = null;
    if (typeof error === "number") return error;
    this.txnManager.appendTransactionToLog(ctx, metadata, error.transit, error.fenced ? "PrepareEpochFence" : undefined);
    this.#sendTxnMarkers(ctx, metadata, committed);
    return ErrorCode.NONE;
  }

  /**
   * Kafka 4.2's `endTransaction` for transaction version 2
   * (`decideEndTransactionV2` has its checks and state table): the epoch is
   * bumped with the PrepareCommit/PrepareAbort, so the markers carry epoch
   * + 1 (and version 2), and the client is answered with the producer id
   * and epoch of the completion: epoch + 1, or a new producer id at epoch 0
   * when the epochs ran out. A retry of a completed EndTxn gets the current
   * producer id and epoch. An abort with no transaction open (from Empty or
   * Complete*) is an epoch bump alone: no markers, CompleteAbort at once.
   * The coordinator's own abort (the fence's epoch) clears the pending
   * fence and bumps once (KAFKA-19367, Kafka 4.0.1: the fence's epoch is
   * not applied first), so the markers carry the fence's epoch.
   */
  #endTransactionV2(
    ctx: Context,
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    committed: boolean,
    isFromClient: boolean,
    clientTransactionVersion: TransactionVersion,
  ): EndTxnOutcome {
    if (transactionalId === "") return answerWithoutProducer(ErrorCode.INVALID_REQUEST);
    const lookup = this.txnManager.getTransactionState(transactionalId);
    if ("errorCode" in lookup) return answerWithoutProducer(lookup.errorCode);
    const metadata = lookup.metadata;
    if (metadata === undefined) return answerWithoutProducer(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const isEpochFence = metadata.pendingState === "PrepareEpochFence";
    const decision = decideEndTransactionV2(metadata, { producerId, producerEpoch, committed, isFromClient });
    if (decision.kind !== "prepare") {
      // As on the path before version 2, a fence the abort did not take is dropped (Kafka would leave it pending).
      if (isEpochFence) metadata.pendingState = null;
      if (decision.kind === "refuse") {
        ctx.log.debug("transaction end refused", {
          transactionalId,
          state: metadata.state,
          committed,
          error: errorName(decision.errorCode),
        });
        return answerWithoutProducer(decision.errorCode);
      }
      return { errorCode: ErrorCode.NONE, producerId: metadata.producerId, producerEpoch: metadata.producerEpoch };
    }
    // The epochs ran out: the client is handed a new producer id now (not on the fence's path, as in Kafka 4.2).
    const nextProducerId =
      !isEpochFence && metadata.isProducerEpochExhausted ? this.producerIds.generateProducerId(ctx.storage) : NO_PRODUCER_ID;
    // The abort takes the fence's place; prepareAbortOrCommit bumps the epoch itself.
    if (isEpochFence) metadata.pendingState = null;
    if (metadata.producerEpoch === SHORT_MAX_VALUE) {
      // Only reachable after a fence at epoch 32766 (no new producer id on that path) and a client that went on at
      // 32767: Kafka's bump overflows the short and its prepareTransitionTo throws, which KafkaApis answers so.
      ctx.log.error("transaction end refused: the producer epoch would overflow", { transactionalId, producerEpoch });
      return answerWithoutProducer(ErrorCode.UNKNOWN_SERVER_ERROR);
    }
    const transit = metadata.prepareAbortOrCommit(
      decision.nextState,
      clientTransactionVersion,
      nextProducerId,
      nowMs(ctx),
      decision.noPartitionAdded,
    );
    this.txnManager.appendTransactionToLog(ctx, metadata, transit, isEpochFence ? "PrepareEpochFence" : undefined);
    const completion = this.#sendTxnMarkers(ctx, metadata, committed);
    return { errorCode: ErrorCode.NONE, producerId: completion.producerId, producerEpoch: completion.producerEpoch };
  }

  /** The checks of `endTransactionWithTV1` before the append: an error code, or the transit to write. */
  #prepareEndTransaction(
    ctx: Context,
    metadata: TransactionMetadata,
    producerId: number,
    producerEpoch: number,
    committed: boolean,
    isFromClient: boolean,
  ): number | { readonly transit: TxnTransitMetadata; readonly fenced: boolean } {
    const invalidState = (): number => {
      ctx.log.debug("transaction end refused", { transactionalId: metadata.transactionalId, state: metadata.state, committed });
      return ErrorCode.INVALID_TXN_STATE;
    };
    if (metadata.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    // Strict equality for the client: its requests never bump the epoch.
    if ((isFromClient && producerEpoch !== metadata.producerEpoch) || producerEpoch < metadata.producerEpoch)
      return ErrorCode.PRODUCER_FENCED;
    if (metadata.pendingTransitionInProgress && metadata.pendingState !== "PrepareEpochFence") return ErrorCode.CONCURRENT_TRANSACTIONS;
    switch (metadata.state) {
      case "Ongoing": {
        const nextState = committed ? "PrepareCommit" : "PrepareAbort";
        const fenced = nextState === "PrepareAbort" && metadata.pendingState === "PrepareEpochFence";
        if (fenced) {
          // The fence becomes the abort: clear it, and write the bumped epoch with the PrepareAbort.
          metadata.pendingState = null;
          metadata.producerEpoch = producerEpoch;
          metadata.lastProducerEpoch = NO_PRODUCER_EPOCH;
        }
        return { transit: metadata.prepareAbortOrCommit(nextState, 0, NO_PRODUCER_ID, nowMs(ctx), false), fenced };
      }
      case "CompleteCommit":
        return committed ? ErrorCode.NONE : invalidState();
      case "CompleteAbort":
        return committed ? invalidState() : ErrorCode.NONE;
      case "PrepareCommit":
        return committed ? ErrorCode.CONCURRENT_TRANSACTIONS : invalidState();
      case "PrepareAbort":
        return committed ? invalidState() : ErrorCode.CONCURRENT_TRANSACTIONS;
      case "Empty":
        return invalidState();
      case "Dead":
      case "PrepareEpochFence":
        throw new IllegalStateError(
          `Found transactionalId ${metadata.transactionalId} with state ${metadata.state}. This is illegal as we should never have transitioned to this state.`,
        );
    }
  }

  // ---- timeouts ----

  /**
   * `abortTimedOutTransactions` (every
   * transaction.abort.timed.out.transaction.cleanup.interval.ms): each
   * Ongoing transaction older than its timeout is fenced (epoch + 1) and
   * aborted at the new epoch, under the cluster's transaction version, so
   * its producer's next request is PRODUCER_FENCED (a client of version 2
   * that ends it with EndTxn(abort) at its old epoch gets the new one).
   */
  abortTimedOutTransactions(ctx: Context): void {
    for (const metadata of this.txnManager.timedOutTransactions(nowMs(ctx))) {
      const fence = this.#prepareFenceProducerEpoch(ctx, metadata);
      const { errorCode: error } = this.#endTransaction(
        ctx,
        metadata.transactionalId,
        fence.producerId,
        fence.producerEpoch,
        false,
        false,
        this.config.transactionVersion,
      );
      if (error === ErrorCode.NONE) ctx.log.info("aborted a timed-out transaction", { transactionalId: metadata.transactionalId });
      else
        ctx.log.warn(`the rollback of a timed-out transaction failed: ${errorName(error)}`, { transactionalId: metadata.transactionalId });
    }
  }

  /** Prepares the epoch fence of an Ongoing transaction (pending PrepareEpochFence), reported as a txn.state step. */
  #prepareFenceProducerEpoch(ctx: Context, metadata: TransactionMetadata): TxnTransitMetadata {
    const transit = metadata.prepareFenceProducerEpoch();
    ctx.observe(
      transactionStateObservation(
        metadata.transactionalId,
        transit.producerId,
        transit.producerEpoch,
        metadata.state,
        "PrepareEpochFence",
        transit.topicPartitions,
      ),
    );
    return transit;
  }

  // ---- markers ----

  /**
   * After a load: each transaction found in PrepareCommit/PrepareAbort gets
   * its markers again (Kafka's `loadTransactionsForTxnTopicPartition`).
   */
  resumePendingTransactions(ctx: Context): void {
    for (const metadata of [...this.txnManager.transactions()]) {
      if (metadata.state === "PrepareCommit") this.#sendTxnMarkers(ctx, metadata, true);
      else if (metadata.state === "PrepareAbort") this.#sendTxnMarkers(ctx, metadata, false);
    }
  }

  /**
   * Prepares the completion (pending CompleteCommit/CompleteAbort), sends the
   * markers (the PrepareCommit/PrepareAbort's producer id and epoch, the
   * transaction's version) and returns the completion's transit.
   */
  #sendTxnMarkers(ctx: Context, metadata: TransactionMetadata, committed: boolean): TxnTransitMetadata {
    const completion = metadata.prepareComplete(nowMs(ctx));
    this.#pendingCompletions.set(metadata.transactionalId, completion);
    if (metadata.topicPartitions.size === 0) {
      this.#completeTransaction(ctx, metadata);
      return completion;
    }
    this.markers.addTxnMarkersToSend(ctx, {
      transactionalId: metadata.transactionalId,
      producerId: metadata.producerId,
      producerEpoch: metadata.producerEpoch,
      committed,
      coordinatorEpoch: this.txnManager.coordinatorEpoch,
      transactionVersion: metadata.clientTransactionVersion,
      partitions: metadata.partitions(),
    });
    return completion;
  }

  /**
   * Kafka's `TransactionMarkerRequestCompletionHandler`: a written marker
   * takes its partition off the transaction; a retriable error sends it
   * again; a fenced producer or coordinator stops the transaction's markers
   * (it stays in PrepareCommit/PrepareAbort until a reload, as in Kafka).
   * When no partition is left, CompleteCommit/CompleteAbort is written.
   */
  onMarkerResults(ctx: Context, results: readonly MarkerResult[]): void {
    const touched = new Set<string>();
    const stopped = new Set<string>();
    for (const result of results) {
      ctx.observe(transactionMarkerObservation(result));
      const { transactionalId, errorCode } = result;
      const topicPartition = tpKey(result.topic, result.partition);
      if (stopped.has(transactionalId)) continue;
      const lookup = this.txnManager.getTransactionState(transactionalId);
      const metadata = "metadata" in lookup ? lookup.metadata : undefined;
      if (metadata === undefined || !this.#pendingCompletions.has(transactionalId)) {
        this.markers.removeMarkersForTxnId(transactionalId);
        continue;
      }
      touched.add(transactionalId);
      if (errorCode === ErrorCode.NONE || SKIPPED_MARKER_ERRORS.has(errorCode)) {
        metadata.removePartition(topicPartition);
      } else if (FENCED_MARKER_ERRORS.has(errorCode)) {
        ctx.log.warn(`transaction markers stopped: ${errorName(errorCode)}`, { transactionalId, topicPartition });
        this.markers.removeMarkersForTxnId(transactionalId);
        stopped.add(transactionalId);
      } else {
        if (!RETRIABLE_MARKER_ERRORS.has(errorCode)) {
          ctx.log.error(`unexpected error writing a transaction marker, retrying: ${errorName(errorCode)}`, {
            transactionalId,
            topicPartition,
          });
        }
        this.markers.retry(ctx, transactionalId, topicPartition);
      }
    }
    for (const transactionalId of touched) {
      if (stopped.has(transactionalId)) continue;
      const lookup = this.txnManager.getTransactionState(transactionalId);
      const metadata = "metadata" in lookup ? lookup.metadata : undefined;
      if (metadata !== undefined && metadata.topicPartitions.size === 0 && !this.markers.isBusy(transactionalId)) {
        this.#completeTransaction(ctx, metadata);
      }
    }
  }

  /** Writes the pending CompleteCommit/CompleteAbort (Kafka's `maybeWriteTxnCompletion`). */
  #completeTransaction(ctx: Context, metadata: TransactionMetadata): void {
    const transit = this.#pendingCompletions.get(metadata.transactionalId);
    if (transit === undefined) return;
    this.#pendingCompletions.delete(metadata.transactionalId);
    this.markers.removeMarkersForTxnId(metadata.transactionalId);
    this.txnManager.appendTransactionToLog(ctx, metadata, transit);
  }

  /**
   * KafkaApis' metadata check of an AddPartitionsToTxn transaction: if a
   * partition is unknown, the errors of all of them (UNKNOWN_TOPIC_OR_PARTITION,
   * OPERATION_NOT_ATTEMPTED for the known ones); null if all are known.
   */
  #unknownPartitionErrors(topics: readonly TopicPartitions[]): ((topic: string, partition: number) => number) | null {
    const allKnown = topics.every((topic) => topic.partitions.every((partition) => this.#isKnownPartition(topic.name, partition)));
    if (allKnown) return null;
    return (topic, partition) =>
      this.#isKnownPartition(topic, partition) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  }

  /** KafkaApis' metadata check: a partition of a configured (or created) topic, or of `__consumer_offsets`. */
  #isKnownPartition(topic: string, partition: number): boolean {
    if (!Number.isInteger(partition) || partition < 0) return false;
    if (topic === GROUP_METADATA_TOPIC_NAME) return partition < this.config.broker["offsets.topic.num.partitions"];
    const known = this.image.topic(topic);
    return known !== undefined && partition < known.partitions;
  }
}

/** The topics and partitions of an AddPartitionsToTxn request or transaction. */
interface TopicPartitions {
  readonly name: string;
  readonly partitions: readonly number[];
}

function tpKeysOf(topics: readonly TopicPartitions[]): string[] {
  return topics.flatMap((topic) => topic.partitions.map((partition) => tpKey(topic.name, partition)));
}

/** Wall-clock milliseconds of the context, as the transaction log stores them. */
function nowMs(ctx: Context): number {
  return Math.floor(ctx.now() / 1000);
}
