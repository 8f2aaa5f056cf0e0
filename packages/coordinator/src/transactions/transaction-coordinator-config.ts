import type { BrokerConfig, JsonValue } from "@kcsim/protocol";
import { isTransactionVersion, type TransactionVersion } from "@kcsim/protocol";
import { isJsonObject, parseActorIdsField, parseBrokerField, parseLoadMsField, parseTopicsField } from "../actor/config-fields.js";
import type { TopicImage } from "../metadata/metadata-image.js";

/**
 * The transaction-coordinator actor's configuration, as scenarios write it:
 *
 * ```json
 * {
 *   "broker": { "transaction.state.log.num.partitions": 50, "transaction.max.timeout.ms": 900000, ... },
 *   "txnCoordinators": ["txn-coordinator-0", "txn-coordinator-1"],
 *   "brokers": ["broker-0", "broker-1", "broker-2"],
 *   "groupCoordinators": ["coordinator-0"],
 *   "topics": [{ "name": "in", "id": "…", "partitions": 6 }, { "name": "out", "partitions": 6 }],
 *   "loadMs": 100,
 *   "transactionVersion": 2
 * }
 * ```
 *
 * - `broker`: Kafka broker settings by their Kafka names (resolveBrokerConfig;
 *   optional): transaction.state.log.num.partitions, transaction.max.timeout.ms,
 *   transaction.abort.timed.out.transaction.cleanup.interval.ms,
 *   transactional.id.expiration.ms,
 *   transaction.remove.expired.transaction.cleanup.interval.ms,
 *   request.timeout.ms (of its WriteTxnMarkers and Metadata requests),
 *   offsets.topic.num.partitions (where AddOffsetsToTxn puts a group).
 * - `txnCoordinators`: every transaction coordinator actor id, this one
 *   included; transactional id t belongs to
 *   txnCoordinators[partitionFor(t, transaction.state.log.num.partitions) mod length].
 * - `brokers`: the data brokers' actor ids, asked for partition leaders
 *   (Metadata) before markers go to data partitions.
 * - `groupCoordinators`: the group coordinator actor ids, as the group
 *   coordinators list them (`__consumer_offsets` partition p is on
 *   groupCoordinators[p mod length]); they receive the markers of offsets
 *   added by AddOffsetsToTxn.
 * - `topics`: the cluster's data topics (AddPartitionsToTxn refuses others
 *   with UNKNOWN_TOPIC_OR_PARTITION); `id` defaults to topicIdFor(name).
 * - `loadMs`: time to load the log after a (re)start; default 100 ms + 1 ms
 *   per 1,000 records.
 * - `transactionVersion`: the cluster's finalized transaction.version
 *   feature, 0, 1 or 2 (default 0). The aborts the coordinator starts itself
 *   (a transaction timeout, InitProducerId fencing an ongoing transaction)
 *   run under it: from 2 they bump the epoch as transaction version 2 does.
 *   From 1 the log records keep each transaction's version (value version
 *   1). Clients' requests carry their own version (EndTxn v5, a broker's
 *   AddPartitionsToTxn that adds).
 */
export interface TransactionCoordinatorConfigJson {
  readonly broker?: { readonly [setting: string]: JsonValue };
  readonly txnCoordinators: readonly string[];
  readonly brokers: readonly string[];
  readonly groupCoordinators: readonly string[];
  readonly topics: readonly { readonly name: string; readonly id?: string; readonly partitions: number }[];
  readonly loadMs?: number;
  readonly transactionVersion?: number;
}

/** The validated configuration. */
export interface TransactionCoordinatorConfig {
  readonly broker: BrokerConfig;
  readonly txnCoordinators: readonly string[];
  readonly brokers: readonly string[];
  readonly groupCoordinators: readonly string[];
  readonly topics: readonly TopicImage[];
  /** null: the default (100 ms + 1 ms per 1,000 records). */
  readonly loadMs: number | null;
  /** The cluster's finalized transaction.version. */
  readonly transactionVersion: TransactionVersion;
}

const FIELDS = new Set(["broker", "txnCoordinators", "brokers", "groupCoordinators", "topics", "loadMs", "transactionVersion"]);

/** Validates the JSON config; a problem is one Error line naming the field. */
export function parseTransactionCoordinatorConfig(actorId: string, json: JsonValue): TransactionCoordinatorConfig {
  const fail = (message: string): never => {
    throw new Error(`transaction-coordinator ${actorId}: config ${message}`);
  };
  if (!isJsonObject(json)) return fail(`must be an object, got ${JSON.stringify(json)}`);
  for (const key of Object.keys(json)) {
    if (!FIELDS.has(key)) fail(`has unknown field '${key}' (expected ${[...FIELDS].join(", ")})`);
  }
  const broker = parseBrokerField(json.broker, fail);
  const txnCoordinators = parseActorIdsField("txnCoordinators", json.txnCoordinators, fail);
  if (!txnCoordinators.includes(actorId)) {
    fail(`field 'txnCoordinators' must list this actor's id '${actorId}', got ${JSON.stringify(txnCoordinators)}`);
  }
  const brokers = parseActorIdsField("brokers", json.brokers, fail);
  const groupCoordinators = parseActorIdsField("groupCoordinators", json.groupCoordinators, fail);
  const topics = parseTopicsField(json.topics, fail);
  const loadMs = parseLoadMsField(json.loadMs, fail);
  const transactionVersion = json.transactionVersion === undefined ? 0 : json.transactionVersion;
  if (!isTransactionVersion(transactionVersion)) {
    return fail(`field 'transactionVersion' must be 0, 1 or 2 (transaction.version), got ${JSON.stringify(transactionVersion)}`);
  }
  return { broker, txnCoordinators, brokers, groupCoordinators, topics, loadMs, transactionVersion };
}
