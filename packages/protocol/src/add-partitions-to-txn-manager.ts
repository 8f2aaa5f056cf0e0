import type { ActorId, Context } from "./actor.js";
import type { BrokerConfig } from "./configs/broker-config.js";
import { ErrorCode } from "./errors.js";
import type { AddPartitionsToTxnBrokerRequest, AddPartitionsToTxnBrokerResponse, Message } from "./messages/index.js";
import { disconnects } from "./rpc.js";
import { type Micros, ms } from "./time.js";
import { tpKey } from "./topics.js";
import { TransactionPlacement } from "./transaction-placement.js";

/** The verifier's connections to the transaction coordinators (Kafka: AddPartitionsToTxnManager's own NetworkClient). */
export const ADD_PARTITIONS_TO_TXN_CONNECTION = "add-partitions-to-txn";

/** Prefix of the timers of requests in flight (one per request: prefix + correlation id). */
export const VERIFICATION_TIMEOUT_PREFIX = "txn-verify-timeout:";

/** AddPartitionsToTxn v4: the first version brokers send (verifyOnly). */
const BROKER_API_VERSION = 4;

/** AddPartitionsToTxn v5: the version of a broker's request that adds partitions (KIP-890 part 2). */
const BROKER_ADD_API_VERSION = 5;

/**
 * What the writer of the API version that asked supports (Kafka's
 * `TransactionSupportedOperation`): `defaultError` turns
 * TRANSACTION_ABORTABLE into INVALID_TXN_STATE for clients that predate it
 * (TxnOffsetCommit below v4, Produce below v11); `genericError` passes it
 * on; `addPartition` (TxnOffsetCommit v5, Produce v12: a client of
 * transaction version 2, which sends no AddPartitionsToTxn itself) passes it
 * on too, and asks the coordinator to add the partitions to the producer's
 * transaction (verifyOnly false) instead of checking that they are in it.
 */
export type TransactionSupportedOperation = "defaultError" | "genericError" | "addPartition";

/** Kafka's `produceRequestVersionToTransactionSupportedOperation`. */
export function produceTransactionOperation(apiVersion: number): TransactionSupportedOperation {
  return apiVersion > 11 ? "addPartition" : apiVersion > 10 ? "genericError" : "defaultError";
}

/** Kafka's `txnOffsetCommitRequestVersionToTransactionSupportedOperation`. */
export function txnOffsetCommitTransactionOperation(apiVersion: number): TransactionSupportedOperation {
  return apiVersion > 4 ? "addPartition" : apiVersion > 3 ? "genericError" : "defaultError";
}

/** A producer's transaction and the partitions to check are in it. */
export interface TransactionToVerify {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly partitions: readonly { readonly topic: string; readonly partition: number }[];
}

/**
 * The end of a verification: the errors of the partitions that failed it,
 * by tpKey (a partition not listed is in the transaction), handed the
 * context of the event that ended it.
 */
export type VerificationCallback = (errors: ReadonlyMap<string, number>, ctx: Context) => void;

interface Waiting {
  readonly transaction: TransactionToVerify;
  /** Whether the coordinator is to add the partitions (verifyOnly false), as Kafka decides per transaction. */
  readonly add: boolean;
  readonly callback: VerificationCallback;
}

/** The transactions waiting for one coordinator, sent together (Kafka's `TransactionDataAndCallbacks`). */
interface Batch {
  /** The supported operation of the transaction that opened the batch: Kafka applies it to the whole batch. */
  readonly operation: TransactionSupportedOperation;
  readonly transactions: Map<string, Waiting>;
}

interface InFlight {
  readonly correlationId: number;
  readonly batch: Batch;
}

export interface AddPartitionsToTxnManagerConfig {
  readonly placement: TransactionPlacement;
  /** The broker's request.timeout.ms: an unanswered request fails as a network error. */
  readonly requestTimeout: Micros;
}

/**
 * A broker's client for KIP-890's transaction verification (Kafka's
 * `AddPartitionsToTxnManager`): before a transactional write to a partition
 * where its producer has no transaction ongoing, the broker asks the
 * transactional id's coordinator whether the partition is part of the
 * producer's transaction (AddPartitionsToTxn v4, verifyOnly), or, for a
 * writer of transaction version 2 (`addPartition`), to add it (v5,
 * verifyOnly false: KIP-890 part 2's implicit add).
 *
 * - One request in flight per coordinator; transactions that come
 *   meanwhile wait and go out together when it is answered.
 * - A second verification of a transactional id while the first waits
 *   replaces it: the first gets NETWORK_EXCEPTION (same epoch: likely a
 *   retry) or INVALID_PRODUCER_EPOCH (an older epoch); one from an older
 *   epoch than the waiting one gets INVALID_PRODUCER_EPOCH itself.
 * - A reset connection or an answer later than request.timeout.ms fails
 *   every transaction of the request with NETWORK_EXCEPTION (the timeout
 *   closes the connection first, as NetworkClient does).
 * - In an answer, PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH and, for
 *   `defaultError`, TRANSACTION_ABORTABLE becomes INVALID_TXN_STATE.
 */
export class AddPartitionsToTxnManager {
  readonly #waiting = new Map<ActorId, Batch>();
  readonly #inFlight = new Map<ActorId, InFlight>();
  #correlation = 0;

  constructor(readonly config: AddPartitionsToTxnManagerConfig) {}

  /** Kafka's `addOrVerifyTransaction`: the callback runs once, when the coordinator has answered or failed to. */
  verifyTransaction(
    ctx: Context,
    transaction: TransactionToVerify,
    operation: TransactionSupportedOperation,
    callback: VerificationCallback,
  ): void {
    const coordinator = this.config.placement.ownerOf(transaction.transactionalId);
    let batch = this.#waiting.get(coordinator);
    if (batch === undefined) {
      batch = { operation, transactions: new Map() };
      this.#waiting.set(coordinator, batch);
    }
    const existing = batch.transactions.get(transaction.transactionalId);
    if (existing !== undefined) {
      if (existing.transaction.producerEpoch <= transaction.producerEpoch) {
        const error =
          existing.transaction.producerEpoch < transaction.producerEpoch ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.NETWORK_EXCEPTION;
        batch.transactions.delete(transaction.transactionalId);
        existing.callback(allPartitions(existing.transaction, error), ctx);
      } else {
        callback(allPartitions(transaction, ErrorCode.INVALID_PRODUCER_EPOCH), ctx);
        return;
      }
    }
    batch.transactions.set(transaction.transactionalId, { transaction, add: operation === "addPartition", callback });
    this.#maybeSend(ctx, coordinator);
  }

  /**
   * A message for the verifier, if it is one (false otherwise): an answer, or the loss of its connection to a
   * transaction coordinator (a datagram-mode reset, "*", included).
   */
  receive(from: ActorId, message: Message, ctx: Context): boolean {
    if (message.type === "AddPartitionsToTxnBrokerResponse") {
      this.#onResponse(from, message, ctx);
      return true;
    }
    if (message.type === "SimDisconnect" && disconnects(message, ADD_PARTITIONS_TO_TXN_CONNECTION)) {
      this.#onDisconnect(from, ctx);
      return true;
    }
    return false;
  }

  /** An answer: each transaction's callback gets its partitions' errors. Ignored if it answers no request in flight. */
  #onResponse(from: ActorId, response: AddPartitionsToTxnBrokerResponse, ctx: Context): void {
    const request = this.#inFlight.get(from);
    if (request === undefined || request.correlationId !== response.correlationId) return;
    this.#inFlight.delete(from);
    ctx.cancelTimer(VERIFICATION_TIMEOUT_PREFIX + request.correlationId);
    const { batch } = request;
    if (response.errorCode !== ErrorCode.NONE) {
      this.#failAll(batch, response.errorCode, ctx);
    } else {
      for (const result of response.resultsByTransaction) {
        const waiting = batch.transactions.get(result.transactionalId);
        if (waiting === undefined) continue;
        const unverified = new Map<string, number>();
        for (const topic of result.topicResults) {
          for (const partition of topic.resultsByPartition) {
            if (partition.partitionErrorCode === ErrorCode.NONE) continue;
            unverified.set(tpKey(topic.name, partition.partitionIndex), clientError(partition.partitionErrorCode, batch.operation));
          }
        }
        waiting.callback(unverified, ctx);
      }
    }
    this.#maybeSend(ctx, from);
  }

  /** The connection to `peer` is gone: the request in flight on it fails with NETWORK_EXCEPTION. */
  #onDisconnect(peer: ActorId, ctx: Context): void {
    const request = this.#inFlight.get(peer);
    if (request === undefined) return;
    this.#inFlight.delete(peer);
    ctx.cancelTimer(VERIFICATION_TIMEOUT_PREFIX + request.correlationId);
    this.#failAll(request.batch, ErrorCode.NETWORK_EXCEPTION, ctx);
    this.#maybeSend(ctx, peer);
  }

  /** Handles a request's timeout timer (false for a timer that is not the manager's). */
  onTimer(name: string, ctx: Context): boolean {
    if (!name.startsWith(VERIFICATION_TIMEOUT_PREFIX)) return false;
    const correlationId = Number(name.slice(VERIFICATION_TIMEOUT_PREFIX.length));
    for (const [coordinator, request] of this.#inFlight) {
      if (request.correlationId !== correlationId) continue;
      ctx.closeConnection(coordinator, ADD_PARTITIONS_TO_TXN_CONNECTION);
      this.#onDisconnect(coordinator, ctx);
      break;
    }
    return true;
  }

  #maybeSend(ctx: Context, coordinator: ActorId): void {
    if (this.#inFlight.has(coordinator)) return;
    const batch = this.#waiting.get(coordinator);
    if (batch === undefined) return;
    this.#waiting.delete(coordinator);
    if (batch.transactions.size === 0) return;
    const correlationId = ++this.#correlation;
    const waiting = [...batch.transactions.values()];
    const request: AddPartitionsToTxnBrokerRequest = {
      type: "AddPartitionsToTxnBrokerRequest",
      correlationId,
      apiVersion: waiting.some(({ add }) => add) ? BROKER_ADD_API_VERSION : BROKER_API_VERSION,
      clientId: ctx.self,
      transactions: waiting.map(({ transaction, add }) => ({
        transactionalId: transaction.transactionalId,
        producerId: transaction.producerId,
        producerEpoch: transaction.producerEpoch,
        verifyOnly: !add,
        topics: byTopic(transaction.partitions),
      })),
    };
    this.#inFlight.set(coordinator, { correlationId, batch });
    ctx.send(coordinator, request, ADD_PARTITIONS_TO_TXN_CONNECTION);
    ctx.setTimer(VERIFICATION_TIMEOUT_PREFIX + correlationId, this.config.requestTimeout);
  }

  #failAll(batch: Batch, errorCode: number, ctx: Context): void {
    for (const { transaction, callback } of batch.transactions.values()) callback(allPartitions(transaction, errorCode), ctx);
  }
}

/** An answer's partition error as the caller sees it (Kafka's `AddPartitionsToTxnHandler.onComplete`). */
function clientError(errorCode: number, operation: TransactionSupportedOperation): number {
  if (errorCode === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (errorCode === ErrorCode.TRANSACTION_ABORTABLE && operation === "defaultError") return ErrorCode.INVALID_TXN_STATE;
  return errorCode;
}

function allPartitions(transaction: TransactionToVerify, errorCode: number): Map<string, number> {
  return new Map(transaction.partitions.map(({ topic, partition }) => [tpKey(topic, partition), errorCode]));
}

function byTopic(partitions: TransactionToVerify["partitions"]): { name: string; partitions: number[] }[] {
  const topics = new Map<string, number[]>();
  for (const { topic, partition } of partitions) {
    const list = topics.get(topic);
    if (list === undefined) topics.set(topic, [partition]);
    else list.push(partition);
  }
  return [...topics].map(([name, indexes]) => ({ name, partitions: indexes }));
}

/**
 * The AddPartitionsToTxnManager of a group coordinator or a partition leader with the broker settings
 * `settings`: null when there is no transaction coordinator to ask. Whether it verifies writes of clients
 * before transaction version 2 is transaction.partition.verification.enable (off: those writes go unverified,
 * as on brokers before 3.6); the implicit adds of transaction version 2 are made whatever that setting says.
 */
export function addPartitionsToTxnManagerFor(
  settings: BrokerConfig,
  txnCoordinators: readonly ActorId[],
): AddPartitionsToTxnManager | null {
  if (txnCoordinators.length === 0) return null;
  return new AddPartitionsToTxnManager({
    placement: new TransactionPlacement(txnCoordinators, settings["transaction.state.log.num.partitions"]),
    requestTimeout: ms(settings["request.timeout.ms"]),
  });
}
