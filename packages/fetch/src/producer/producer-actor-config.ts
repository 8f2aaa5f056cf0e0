import {
  type ActorId,
  ConfigError,
  DEFAULT_TRANSACTION_VERSION,
  type JsonValue,
  MAX_TRANSACTION_VERSION,
  MIN_TRANSACTION_VERSION,
  type ProducerConfig,
  resolveProducerConfig,
} from "@kcsim/protocol";
import { ConfigReader } from "../cluster/config-reader.js";
import { withDeliveryTimeoutFloor } from "./delivery-timeout-floor.js";
import { idempotenceOf } from "./idempotence-config.js";
import type { ProducerTopic } from "./producer-client.js";
import { readWorkload, type WorkloadSpec } from "./workload.js";

export type { ProducerTopic } from "./producer-client.js";

/**
 * How a transactional producer actor cuts its workload into transactions:
 * a transaction ends after `recordsPerTransaction` records, or
 * `transactionMs` after it began if that comes first (with at least one
 * record); it is aborted instead of committed with probability
 * `abortRatio`.
 */
export interface TransactionSpec {
  readonly recordsPerTransaction: number;
  readonly transactionMs: number | null;
  readonly abortRatio: number;
}

/**
 * A producer actor's configuration: `{bootstrap: [broker actor ids],
 * topics: [{name, id?, partitions}], producer: {Kafka producer settings},
 * workload: {...}, transactionCoordinators?: [actor ids], transaction?:
 * {recordsPerTransaction, transactionMs?, abortRatio?}, transactionVersion?:
 * 0..2}`. `acks` is
 * resolved to -1, 0 or 1; enable.idempotence follows Kafka's rules (true by
 * default, quietly off when an unset value conflicts with acks, retries or
 * max.in.flight.requests.per.connection; a config error when set
 * explicitly). With `producer.transactional.id` the workload runs in
 * transactions (`transaction`, default 100 records each, none aborted on
 * purpose) and `transactionCoordinators` is required. `transactionVersion`
 * is the cluster's finalized transaction.version as the producer reads it
 * (default 0; 2: KIP-890 part 2's transactions).
 */
export interface ProducerActorConfig {
  readonly bootstrap: readonly ActorId[];
  readonly topics: readonly ProducerTopic[];
  readonly settings: ProducerConfig;
  readonly acks: -1 | 0 | 1;
  readonly idempotent: boolean;
  readonly workload: WorkloadSpec;
  readonly transactionCoordinators: readonly ActorId[];
  /** null unless transactional.id is set. */
  readonly transaction: TransactionSpec | null;
  /** The cluster's finalized transaction.version feature level as the producer reads it (0 to 2). */
  readonly transactionVersion: number;
}

export function parseProducerActorConfig(json: JsonValue): ProducerActorConfig {
  const config = ConfigReader.of("producer", json).onlyKeys([
    "bootstrap",
    "topics",
    "producer",
    "workload",
    "transactionCoordinators",
    "transaction",
    "transactionVersion",
  ]);
  const bootstrap = config.strings("bootstrap", { minItems: 1 });
  const topics = config.objects("topics", { minItems: 1 }).map((t) => {
    t.onlyKeys(["name", "id", "partitions"]);
    if (t.has("id")) t.string("id");
    return { name: t.string("name"), partitions: t.int("partitions", { min: 1 }) };
  });
  const raw = config.object("producer", true);
  let settings: ProducerConfig;
  try {
    settings = resolveProducerConfig(config.raw("producer") ?? {});
  } catch (error) {
    throw new ConfigError(`producer config: 'producer': ${(error as Error).message}`);
  }
  const idempotent = idempotenceOf(settings, raw.has("enable.idempotence"), (setting, problem) => raw.fail(setting, problem));
  settings = { ...settings, "enable.idempotence": idempotent };
  settings = withDeliveryTimeoutFloor(settings, raw.has("delivery.timeout.ms"), (setting, problem) => raw.fail(setting, problem));
  const workload = readWorkload(config.object("workload"));
  if (!topics.some((t) => t.name === workload.topic)) {
    config.fail("workload.topic", `= ${JSON.stringify(workload.topic)} is not one of the configured topics`);
  }
  const acks = settings.acks === "all" || settings.acks === "-1" ? -1 : settings.acks === "0" ? 0 : 1;
  const transactional = settings["transactional.id"] !== null;
  const transactionCoordinators = config.strings("transactionCoordinators", { optional: true });
  if (transactional && transactionCoordinators.length === 0) {
    config.fail("transactionCoordinators", "must name at least one transaction coordinator when producer.transactional.id is set");
  }
  if (!transactional && config.has("transaction")) config.fail("transaction", "needs producer.transactional.id");
  let transaction: TransactionSpec | null = null;
  if (transactional) {
    const t = config.object("transaction", true).onlyKeys(["recordsPerTransaction", "transactionMs", "abortRatio"]);
    transaction = {
      recordsPerTransaction: t.int("recordsPerTransaction", { min: 1, default: 100 }),
      transactionMs: t.has("transactionMs") ? t.int("transactionMs", { min: 1 }) : null,
      abortRatio: t.number("abortRatio", { min: 0, default: 0 }),
    };
    if (transaction.abortRatio > 1) t.fail("abortRatio", `= ${transaction.abortRatio} is above the maximum 1`);
  }
  const transactionVersion = config.int("transactionVersion", {
    min: MIN_TRANSACTION_VERSION,
    max: MAX_TRANSACTION_VERSION,
    default: DEFAULT_TRANSACTION_VERSION,
  });
  return { bootstrap, topics, settings, acks, idempotent, workload, transactionCoordinators, transaction, transactionVersion };
}
