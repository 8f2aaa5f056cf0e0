import { type BrokerConfig, type JsonValue, PlantedBugs } from "@kcsim/protocol";
import type { TopicImage } from "../metadata/metadata-image.js";
import { isJsonObject, parseActorIdsField, parseBrokerField, parseLoadMsField, parseTopicsField } from "./config-fields.js";

/**
 * The group-coordinator actor's configuration, as scenarios write it:
 *
 * ```json
 * {
 *   "broker": { "group.consumer.session.timeout.ms": 45000, ... },
 *   "topics": [{ "name": "T1", "id": "…22 base64url chars…", "partitions": 60 }],
 *   "coordinators": ["coordinator-0", "coordinator-1"],
 *   "txnCoordinators": ["txn-coordinator-0"],
 *   "loadMs": 100
 * }
 * ```
 *
 * - `broker`: Kafka broker settings by their Kafka names (resolveBrokerConfig; optional).
 * - `topics`: the cluster's topics, the coordinator's metadata image (`id` defaults to topicIdFor(name)).
 * - `coordinators`: every coordinator actor id; group g belongs to
 *   coordinators[partitionFor(g, offsets.topic.num.partitions) mod coordinators.length].
 *   Must list this actor.
 * - `txnCoordinators`: the transaction coordinator actor ids, as they list
 *   themselves (transactional id t belongs to
 *   txnCoordinators[partitionFor(t, transaction.state.log.num.partitions) mod length]);
 *   a TxnOffsetCommit is verified with them (KIP-890 part 1). Default none:
 *   with nobody to ask, the coordinator writes without verifying, as Kafka
 *   does with transaction.partition.verification.enable off.
 * - `loadMs`: time to load the log after a (re)start; default 100 ms + 1 ms per 1,000 records.
 * - `plantedBugs`: planted bugs of this actor kind to enable (PLANTED_BUGS in @kcsim/protocol); default none.
 */
export interface GroupCoordinatorConfigJson {
  readonly broker?: { readonly [setting: string]: JsonValue };
  readonly topics: readonly { readonly name: string; readonly id?: string; readonly partitions: number }[];
  readonly coordinators: readonly string[];
  readonly txnCoordinators?: readonly string[];
  readonly loadMs?: number;
  readonly plantedBugs?: readonly string[];
}

/** The validated configuration. */
export interface GroupCoordinatorConfig {
  readonly broker: BrokerConfig;
  readonly topics: readonly TopicImage[];
  readonly coordinators: readonly string[];
  readonly txnCoordinators: readonly string[];
  /** null: the default (100 ms + 1 ms per 1,000 records). */
  readonly loadMs: number | null;
  readonly plantedBugs: PlantedBugs;
}

const FIELDS = new Set(["broker", "topics", "coordinators", "txnCoordinators", "loadMs", "plantedBugs"]);

/** Validates the JSON config; a problem is one Error line naming the field. */
export function parseGroupCoordinatorConfig(actorId: string, json: JsonValue): GroupCoordinatorConfig {
  const fail = (message: string): never => {
    throw new Error(`group-coordinator ${actorId}: config ${message}`);
  };
  if (!isJsonObject(json)) return fail(`must be an object, got ${JSON.stringify(json)}`);
  for (const key of Object.keys(json)) {
    if (!FIELDS.has(key)) fail(`has unknown field '${key}' (expected broker, topics, coordinators, txnCoordinators, loadMs, plantedBugs)`);
  }
  const broker = parseBrokerField(json.broker, fail);
  const topics = parseTopicsField(json.topics, fail);
  const coordinators = parseActorIdsField("coordinators", json.coordinators, fail);
  if (!coordinators.includes(actorId))
    fail(`field 'coordinators' must list this actor's id '${actorId}', got ${JSON.stringify(coordinators)}`);
  const txnCoordinators = json.txnCoordinators === undefined ? [] : parseActorIdsField("txnCoordinators", json.txnCoordinators, fail);
  const loadMs = parseLoadMsField(json.loadMs, fail);
  let plantedBugs = PlantedBugs.NONE;
  try {
    plantedBugs = PlantedBugs.fromField(json.plantedBugs);
  } catch (error) {
    fail(error instanceof Error ? error.message.replace(/^config /, "") : String(error));
  }
  return { broker, topics, coordinators, txnCoordinators, loadMs, plantedBugs };
}
