import { type ActorId, ConfigError, type JsonValue, type ProducerConfig, resolveProducerConfig } from "@kcsim/protocol";
import { ConfigReader } from "../cluster/config-reader.js";
import { readWorkload, type WorkloadSpec } from "./workload.js";

/** A topic the producer may write, as the scenario declares it. */
export interface ProducerTopic {
  readonly name: string;
  readonly partitions: number;
}

/**
 * A producer actor's configuration: `{bootstrap: [broker actor ids],
 * topics: [{name, id?, partitions}], producer: {Kafka producer settings},
 * workload: {...}}`. `acks` is resolved to -1, 0 or 1. Idempotence and
 * transactions are not implemented yet: enable.idempotence defaults to
 * false here (Kafka's default is true) and setting it to true, or setting
 * transactional.id, is refused.
 */
export interface ProducerActorConfig {
  readonly bootstrap: readonly ActorId[];
  readonly topics: readonly ProducerTopic[];
  readonly settings: ProducerConfig;
  readonly acks: -1 | 0 | 1;
  readonly workload: WorkloadSpec;
}

export function parseProducerActorConfig(json: JsonValue): ProducerActorConfig {
  const config = ConfigReader.of("producer", json).onlyKeys(["bootstrap", "topics", "producer", "workload"]);
  const bootstrap = config.strings("bootstrap", { minItems: 1 });
  const topics = config.objects("topics", { minItems: 1 }).map((t) => {
    t.onlyKeys(["name", "id", "partitions"]);
    if (t.has("id")) t.string("id");
    return { name: t.string("name"), partitions: t.int("partitions", { min: 1 }) };
  });
  const raw = config.object("producer", true);
  if (raw.raw("enable.idempotence") === true) {
    raw.fail("enable.idempotence", "= true is not implemented yet (producer ids and sequences come with transactions); leave it false");
  }
  if (raw.has("transactional.id")) raw.fail("transactional.id", "is not implemented yet (transactions come in a later issue)");
  let settings: ProducerConfig;
  try {
    settings = { ...resolveProducerConfig(config.raw("producer") ?? {}), "enable.idempotence": false };
  } catch (error) {
    throw new ConfigError(`producer config: 'producer': ${(error as Error).message}`);
  }
  const floor = settings["linger.ms"] + settings["request.timeout.ms"];
  if (settings["delivery.timeout.ms"] < floor) {
    if (raw.has("delivery.timeout.ms")) {
      raw.fail("delivery.timeout.ms", `= ${settings["delivery.timeout.ms"]} must be at least linger.ms + request.timeout.ms = ${floor}`);
    }
    // Kafka raises an unset delivery timeout to the floor.
    settings = { ...settings, "delivery.timeout.ms": floor };
  }
  const workload = readWorkload(config.object("workload"));
  if (!topics.some((t) => t.name === workload.topic)) {
    config.fail("workload.topic", `= ${JSON.stringify(workload.topic)} is not one of the configured topics`);
  }
  const acks = settings.acks === "all" || settings.acks === "-1" ? -1 : settings.acks === "0" ? 0 : 1;
  return { bootstrap, topics, settings, acks, workload };
}
