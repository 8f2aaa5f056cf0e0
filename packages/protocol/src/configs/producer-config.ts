import { type ConfigDef, resolveConfig } from "./config-def.js";

/** Producer settings with Kafka's defaults (ProducerConfig). */
export interface ProducerConfig {
  "client.id": string;
  acks: string;
  "linger.ms": number;
  "batch.size": number;
  "partitioner.adaptive.partitioning.enable": boolean;
  "partitioner.availability.timeout.ms": number;
  "partitioner.ignore.keys": boolean;
  "enable.idempotence": boolean;
  "transactional.id": string | null;
  "transaction.timeout.ms": number;
  "max.in.flight.requests.per.connection": number;
  "request.timeout.ms": number;
  "delivery.timeout.ms": number;
  "retry.backoff.ms": number;
  "retry.backoff.max.ms": number;
  retries: number;
  "max.request.size": number;
  "metadata.max.age.ms": number;
}

export const PRODUCER_CONFIG_DEF: ConfigDef<ProducerConfig> = {
  "client.id": { type: "string", default: "", doc: "Client id sent in request headers." },
  acks: { type: "string", default: "all", validValues: ["0", "1", "all", "-1"], doc: "Acknowledgements the leader waits for." },
  "linger.ms": { type: "int", default: 5, min: 0, doc: "Time to wait for more records before sending a batch." },
  "batch.size": { type: "int", default: 16384, min: 0, doc: "Batch size in bytes per partition." },
  "partitioner.adaptive.partitioning.enable": {
    type: "boolean",
    default: true,
    doc: "Keyless records: weigh the next sticky partition towards partitions with fewer batches waiting (KIP-794).",
  },
  "partitioner.availability.timeout.ms": {
    type: "long",
    default: 0,
    min: 0,
    doc: "Keyless records: leave out partitions whose leader has had data ready but not taken for this long (0: never).",
  },
  "partitioner.ignore.keys": {
    type: "boolean",
    default: false,
    doc: "Place keyed records as keyless ones (the sticky partition), not by key hash.",
  },
  "enable.idempotence": { type: "boolean", default: true, doc: "Idempotent producing (producer id, epoch, sequence numbers)." },
  "transactional.id": { type: "string", default: null, nullable: true, doc: "Transactional id; enables transactions." },
  "transaction.timeout.ms": { type: "int", default: 60000, min: 1, doc: "Time the coordinator waits before aborting an open transaction." },
  "max.in.flight.requests.per.connection": { type: "int", default: 5, min: 1, doc: "Unacknowledged requests per connection." },
  "request.timeout.ms": { type: "int", default: 30000, min: 0, doc: "How long a request waits for its response." },
  "delivery.timeout.ms": { type: "int", default: 120000, min: 0, doc: "Upper bound on reporting success or failure of a send." },
  "retry.backoff.ms": { type: "long", default: 100, min: 0, doc: "Initial retry backoff." },
  "retry.backoff.max.ms": { type: "long", default: 1000, min: 0, doc: "Maximum retry backoff." },
  retries: { type: "int", default: 2147483647, min: 0, doc: "Retries of a failed batch (delivery.timeout.ms bounds them in practice)." },
  "max.request.size": { type: "int", default: 1048576, min: 0, doc: "Largest produce request (and record)." },
  "metadata.max.age.ms": { type: "long", default: 300000, min: 0, doc: "Metadata is refreshed at least this often." },
};

export function resolveProducerConfig(overrides: unknown): ProducerConfig {
  return resolveConfig("producer", PRODUCER_CONFIG_DEF, overrides);
}
