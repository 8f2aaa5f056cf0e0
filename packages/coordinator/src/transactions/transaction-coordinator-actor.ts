import {
  type Actor,
  type ActorId,
  type Context,
  type ControlCommand,
  disconnects,
  type JsonValue,
  type Message,
  type Micros,
  ms,
  TransactionPlacement,
} from "@kcsim/protocol";
import { topicChangeOf } from "../actor/metadata-commands.js";
import { MetadataImage } from "../metadata/metadata-image.js";
import type { TopicImageRecord } from "../records/coordinator-record.js";
import { findTransactionCoordinator } from "./find-transaction-coordinator.js";
import { ProducerIdManager } from "./producer-id-manager.js";
import { TransactionCoordinator } from "./transaction-coordinator.js";
import { parseTransactionCoordinatorConfig, type TransactionCoordinatorConfig } from "./transaction-coordinator-config.js";
import {
  type CoordinatorEpochRecord,
  isTransactionCoordinatorRecord,
  type TransactionCoordinatorRecord,
} from "./transaction-log-records.js";
import { transactionCoordinatorLoadedObservation } from "./transaction-observations.js";
import { transactionCoordinatorSnapshot } from "./transaction-snapshot.js";
import { TransactionStateManager } from "./transaction-state-manager.js";
import { TXN_MARKER_CONNECTION, TxnMarkerChannel } from "./txn-marker-channel.js";

/** The actor kind scenarios name. */
export const TRANSACTION_COORDINATOR_KIND = "transaction-coordinator";

/** The timer that ends the load of the log after a (re)start. */
export const TXN_COORDINATOR_LOAD_TIMER = "txn-coordinator-load";
/** transaction.abort.timed.out.transaction.cleanup.interval.ms. */
export const ABORT_TIMED_OUT_TRANSACTIONS_TIMER = "txn-abort-timed-out";
/** transaction.remove.expired.transaction.cleanup.interval.ms. */
export const REMOVE_EXPIRED_TRANSACTIONAL_IDS_TIMER = "txn-remove-expired-ids";

/**
 * The inter-broker client's retry.backoff.ms (its default): the pause
 * before a marker is sent again, and between Metadata requests.
 */
const MARKER_RETRY_BACKOFF_MS = 100;

/** Correlation ids of one start of the actor (its requests' range); the ranges cycle within int32. */
const CORRELATION_IDS_PER_START = 1 << 22;
const CORRELATION_ID_RANGES = 1 << 9;

/** The default load time: 100 ms plus 1 ms per 1,000 records (1 us per record). */
function defaultLoadMicros(records: number): Micros {
  return ms(100) + records;
}

/**
 * A transaction coordinator (KIP-98; Kafka's TransactionCoordinator with
 * its TransactionStateManager and TransactionMarkerChannelManager, leading
 * the `__transaction_state` partitions placed on it).
 *
 * - FindCoordinator (TRANSACTION) for the transactional ids it owns;
 *   NOT_COORDINATOR for the others.
 * - InitProducerId (transactional and idempotent), AddPartitionsToTxn,
 *   AddOffsetsToTxn and EndTxn for its transactional ids (NOT_COORDINATOR
 *   for others, COORDINATOR_LOAD_IN_PROGRESS while loading); the brokers'
 *   AddPartitionsToTxn (v4), whose verify-only transactions answer whether
 *   a partition is in the ongoing transaction (KIP-890 part 1) and whose
 *   other transactions add partitions for clients of transaction version 2
 *   (KIP-890 part 2, whose EndTxn v5 bumps the producer epoch).
 * - Writes markers (WriteTxnMarkers) to the data partitions' leaders (found
 *   with Metadata requests to `brokers`) and to the group coordinators of
 *   the `__consumer_offsets` partitions, retrying on leadership errors,
 *   resets (SimDisconnect) and timeouts (request.timeout.ms).
 * - Aborts transactions older than their timeout, checked every
 *   transaction.abort.timed.out.transaction.cleanup.interval.ms; expires
 *   idle transactional ids (transactional.id.expiration.ms, checked every
 *   transaction.remove.expired.transaction.cleanup.interval.ms).
 * - Its state lives in ctx.storage (the `__transaction_state` records, the
 *   producer id blocks it took, its coordinator epochs). A (re)start reads
 *   it, takes the next coordinator epoch, answers
 *   COORDINATOR_LOAD_IN_PROGRESS for `loadMs`, then sends the markers of
 *   every transaction in PrepareCommit/PrepareAbort again; ongoing
 *   transactions go on timing out from their recorded start.
 */
export class TransactionCoordinatorActor implements Actor {
  readonly #id: ActorId;
  readonly #config: TransactionCoordinatorConfig;
  readonly #placement: TransactionPlacement;
  #image: MetadataImage;
  #txnManager: TransactionStateManager;
  #markers: TxnMarkerChannel;
  #coordinator: TransactionCoordinator;
  #loadedRecords = 0;

  constructor(id: ActorId, config: TransactionCoordinatorConfig) {
    this.#id = id;
    this.#config = config;
    this.#placement = new TransactionPlacement(config.txnCoordinators, config.broker["transaction.state.log.num.partitions"]);
    this.#image = new MetadataImage(config.topics);
    this.#txnManager = new TransactionStateManager(id, this.#placement, config.transactionVersion);
    this.#markers = this.#newMarkerChannel(0);
    this.#coordinator = this.#newCoordinator();
  }

  start(ctx: Context): void {
    this.#image = new MetadataImage(this.#config.topics);
    this.#txnManager = new TransactionStateManager(this.#id, this.#placement, this.#config.transactionVersion);
    const records = this.#readLog(ctx);
    for (const record of records) if (record.type === "kcsim.TopicImage") this.#image.apply(record.topic);
    this.#txnManager.load(records);
    // A new coordinator epoch for this start (Kafka: the partition's new leader epoch).
    const epoch: CoordinatorEpochRecord = { type: "kcsim.TxnCoordinatorEpoch", coordinatorEpoch: this.#txnManager.coordinatorEpoch + 1 };
    ctx.storage.append(epoch);
    this.#txnManager.coordinatorEpoch = epoch.coordinatorEpoch;
    this.#txnManager.loading = true;
    this.#markers = this.#newMarkerChannel(epoch.coordinatorEpoch);
    this.#coordinator = this.#newCoordinator();
    this.#coordinator.producerIds.load(records);
    this.#loadedRecords = records.length;
    const loadMicros = this.#config.loadMs === null ? defaultLoadMicros(records.length) : ms(this.#config.loadMs);
    if (loadMicros <= 0) this.#finishLoading(ctx);
    else ctx.setTimer(TXN_COORDINATOR_LOAD_TIMER, loadMicros);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    switch (message.type) {
      case "FindCoordinatorRequest":
        ctx.send(from, findTransactionCoordinator(this.#id, this.#placement, message));
        return;
      case "InitProducerIdRequest":
        ctx.send(from, this.#coordinator.handleInitProducerId(ctx, message));
        return;
      case "AddPartitionsToTxnRequest":
        ctx.send(from, this.#coordinator.handleAddPartitionsToTxnRequest(ctx, message));
        return;
      case "AddPartitionsToTxnBrokerRequest":
        ctx.send(from, this.#coordinator.handleAddPartitionsToTxnBrokerRequest(ctx, message));
        return;
      case "AddOffsetsToTxnRequest":
        ctx.send(from, this.#coordinator.handleAddOffsetsToTxn(ctx, message));
        return;
      case "EndTxnRequest":
        ctx.send(from, this.#coordinator.handleEndTransaction(ctx, message));
        return;
      case "WriteTxnMarkersResponse":
        this.#coordinator.onMarkerResults(ctx, this.#markers.onWriteTxnMarkersResponse(from, message, ctx));
        return;
      case "MetadataResponse":
        this.#markers.onMetadataResponse(from, message, ctx);
        return;
      case "SimDisconnect":
        if (disconnects(message, TXN_MARKER_CONNECTION)) this.#coordinator.onMarkerResults(ctx, this.#markers.onDisconnect(from, ctx));
        return;
      default:
        ctx.log.debug("transaction coordinator ignores a message", { type: message.type, from });
    }
  }

  fire(timer: string, ctx: Context): void {
    switch (timer) {
      case TXN_COORDINATOR_LOAD_TIMER:
        this.#finishLoading(ctx);
        return;
      case ABORT_TIMED_OUT_TRANSACTIONS_TIMER:
        this.#coordinator.abortTimedOutTransactions(ctx);
        ctx.setTimer(
          ABORT_TIMED_OUT_TRANSACTIONS_TIMER,
          ms(this.#config.broker["transaction.abort.timed.out.transaction.cleanup.interval.ms"]),
        );
        return;
      case REMOVE_EXPIRED_TRANSACTIONAL_IDS_TIMER:
        this.#txnManager.expireTransactionalIds(ctx, Math.floor(ctx.now() / 1000), this.#config.broker["transactional.id.expiration.ms"]);
        ctx.setTimer(
          REMOVE_EXPIRED_TRANSACTIONAL_IDS_TIMER,
          ms(this.#config.broker["transaction.remove.expired.transaction.cleanup.interval.ms"]),
        );
        return;
      default: {
        const results = this.#markers.onTimer(timer, ctx);
        if (results !== null) this.#coordinator.onMarkerResults(ctx, results);
      }
    }
  }

  /** The metadata commands of the group coordinator (`create-topic`, `add-partitions`): the topics AddPartitionsToTxn accepts. */
  control(command: ControlCommand, ctx: Context): void {
    let topic: ReturnType<typeof topicChangeOf>;
    try {
      topic = topicChangeOf(command, this.#image);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      ctx.log.warn(`transaction coordinator ignores a bad command: ${error.message}`, { command: command.command });
      return;
    }
    if (topic === null) return;
    const record: TopicImageRecord = { type: "kcsim.TopicImage", topic };
    ctx.storage.append(record);
    this.#image.apply(topic);
  }

  snapshot(): JsonValue {
    return transactionCoordinatorSnapshot(this.#txnManager, this.#markers, this.#coordinator.producerIds);
  }

  #finishLoading(ctx: Context): void {
    ctx.cancelTimer(TXN_COORDINATOR_LOAD_TIMER);
    this.#txnManager.loading = false;
    ctx.observe(
      transactionCoordinatorLoadedObservation({
        records: this.#loadedRecords,
        transactions: this.#txnManager.size,
        coordinatorEpoch: this.#txnManager.coordinatorEpoch,
      }),
    );
    this.#coordinator.resumePendingTransactions(ctx);
    ctx.setTimer(
      ABORT_TIMED_OUT_TRANSACTIONS_TIMER,
      ms(this.#config.broker["transaction.abort.timed.out.transaction.cleanup.interval.ms"]),
    );
    ctx.setTimer(
      REMOVE_EXPIRED_TRANSACTIONAL_IDS_TIMER,
      ms(this.#config.broker["transaction.remove.expired.transaction.cleanup.interval.ms"]),
    );
  }

  /** A marker channel for the life that starts with coordinator epoch `coordinatorEpoch`. */
  #newMarkerChannel(coordinatorEpoch: number): TxnMarkerChannel {
    return new TxnMarkerChannel({
      correlationIdBase: (coordinatorEpoch % CORRELATION_ID_RANGES) * CORRELATION_IDS_PER_START,
      brokers: this.#config.brokers,
      groupCoordinators: this.#config.groupCoordinators,
      requestTimeout: ms(this.#config.broker["request.timeout.ms"]),
      retryBackoff: ms(MARKER_RETRY_BACKOFF_MS),
    });
  }

  #newCoordinator(): TransactionCoordinator {
    const producerIds = new ProducerIdManager(this.#config.txnCoordinators.indexOf(this.#id), this.#config.txnCoordinators.length);
    return new TransactionCoordinator(this.#config, this.#txnManager, producerIds, this.#markers, this.#image);
  }

  #readLog(ctx: Context): TransactionCoordinatorRecord[] {
    const records = ctx.storage.readAll();
    records.forEach((record, index) => {
      if (!isTransactionCoordinatorRecord(record)) {
        throw new Error(`transaction coordinator ${this.#id}: record ${index} of the log is not a transaction coordinator record`);
      }
    });
    return records as TransactionCoordinatorRecord[];
  }
}

/** The actor factory for kind "transaction-coordinator" (config: TransactionCoordinatorConfigJson). */
export function createTransactionCoordinator(id: ActorId, config: JsonValue): Actor {
  return new TransactionCoordinatorActor(id, parseTransactionCoordinatorConfig(id, config));
}
