import { ConfigError, deepestError, type JsonValue, SchemaCheck } from "@kcsim/protocol";
import { type Static, Type } from "@sinclair/typebox";
import { WireClientConfigSchema } from "../wire-clients/wire-client-config.js";

const Closed = { additionalProperties: false } as const;
const Ms = (description?: string) => Type.Integer({ minimum: 0, ...(description !== undefined ? { description } : {}) });

/** KafkaJS's RetryOptions. Given in full by default, so KafkaJS's own defaults (which differ under NODE_ENV=test) never apply. */
const RetrySchema = Type.Object(
  {
    maxRetryTime: Type.Optional(Ms("The longest wait between retries, ms (default 30000).")),
    initialRetryTime: Type.Optional(Ms("The first wait, ms (default 300).")),
    factor: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "The randomization factor of each wait (default 0.2)." })),
    multiplier: Type.Optional(Type.Number({ minimum: 1, description: "How much each wait grows (default 2)." })),
    retries: Type.Optional(Type.Integer({ minimum: 0, description: "How many retries before giving up (default 5)." })),
  },
  {
    ...Closed,
    description: "KafkaJS retry: its RetryOptions (given in full by default, so KafkaJS's NODE_ENV=test defaults never apply).",
  },
);

/** The KafkaJS consumer options a scenario may set (KafkaJS's names; `kafka.consumer({...})`). */
export const KafkaJSConsumerOptionsSchema = Type.Object(
  {
    sessionTimeout: Type.Optional(Ms("KafkaJS sessionTimeout: the group session timeout, ms (default 30000).")),
    rebalanceTimeout: Type.Optional(
      Ms("KafkaJS rebalanceTimeout: how long the coordinator waits for members to rejoin, ms (default 60000)."),
    ),
    heartbeatInterval: Type.Optional(Ms("KafkaJS heartbeatInterval: ms between heartbeats (default 3000).")),
    metadataMaxAge: Type.Optional(Ms("KafkaJS metadataMaxAge: ms before metadata is refreshed (default 300000).")),
    allowAutoTopicCreation: Type.Optional(Type.Boolean({ description: "KafkaJS allowAutoTopicCreation (default true)." })),
    maxBytesPerPartition: Type.Optional(
      Type.Integer({ minimum: 1, description: "KafkaJS maxBytesPerPartition: the fetch size per partition, bytes (default 1048576)." }),
    ),
    minBytes: Type.Optional(Type.Integer({ minimum: 0, description: "KafkaJS minBytes: the least a fetch waits for, bytes (default 1)." })),
    maxBytes: Type.Optional(
      Type.Integer({ minimum: 1, description: "KafkaJS maxBytes: the most a fetch returns, bytes (default 10485760)." }),
    ),
    maxWaitTimeInMs: Type.Optional(Ms("KafkaJS maxWaitTimeInMs: how long a fetch waits for minBytes, ms (default 5000).")),
    readUncommitted: Type.Optional(
      Type.Boolean({ description: "KafkaJS readUncommitted: read records of open transactions (default false)." }),
    ),
    maxInFlightRequests: Type.Optional(
      Type.Integer({ minimum: 1, description: "KafkaJS maxInFlightRequests per connection (default: no limit)." }),
    ),
    retry: Type.Optional(RetrySchema),
    /** `new Kafka({...})` options. */
    connectionTimeout: Type.Optional(Ms("KafkaJS connectionTimeout (new Kafka): ms to open a connection (default 1000).")),
    requestTimeout: Type.Optional(Ms("KafkaJS requestTimeout (new Kafka): ms before a request fails (default 30000).")),
    /** `consumer.run({...})` options. */
    autoCommitInterval: Type.Optional(
      Type.Union([Ms("ms between commits."), Type.Null({ description: "No interval." })], {
        description: "KafkaJS autoCommitInterval (consumer.run): commit every this many ms, or null (default null).",
      }),
    ),
    autoCommitThreshold: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, description: "Records between commits." }), Type.Null({ description: "No threshold." })], {
        description: "KafkaJS autoCommitThreshold (consumer.run): commit after this many records, or null (default null).",
      }),
    ),
    autoCommit: Type.Optional(Type.Boolean({ description: "KafkaJS autoCommit (consumer.run): commit resolved offsets (default true)." })),
    /** `consumer.subscribe({ fromBeginning })`. */
    fromBeginning: Type.Optional(
      Type.Boolean({
        description:
          "KafkaJS fromBeginning (consumer.subscribe): start at the earliest offset without a commit (default true here, so a group reads every record produced; KafkaJS's own default is false).",
      }),
    ),
  },
  {
    ...Closed,
    description: "KafkaJS 2.2.4's consumer options, by KafkaJS's names (kafka.consumer, new Kafka, consumer.run, consumer.subscribe).",
  },
);

/** The application around the consumer: its handler and how long each record takes. */
export const KafkaJSAppSchema = Type.Object(
  {
    handler: Type.Optional(Type.Union([Type.Literal("eachMessage"), Type.Literal("eachBatch")])),
    processingMsPerRecord: Type.Optional(Type.Number({ minimum: 0 })),
  },
  Closed,
);

export const KafkaJSConsumerConfigSchema = Type.Object(
  {
    groupId: Type.String({ minLength: 1 }),
    subscription: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    kafkajs: KafkaJSConsumerOptionsSchema,
    app: KafkaJSAppSchema,
    wire: WireClientConfigSchema,
    /** For the harness's group topology (checkers): the group's settings by Kafka's names, and its topics. Not read by the actor. */
    consumer: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    topics: Type.Optional(Type.Array(Type.Unknown())),
  },
  Closed,
);

export type KafkaJSConsumerConfig = Static<typeof KafkaJSConsumerConfigSchema>;
export type KafkaJSConsumerOptions = Static<typeof KafkaJSConsumerOptionsSchema>;

const check = new SchemaCheck(KafkaJSConsumerConfigSchema);

export function parseKafkaJSConsumerConfig(json: JsonValue): KafkaJSConsumerConfig {
  if (!check.Check(json)) {
    const error = deepestError(check.Errors(json));
    throw new ConfigError(
      `kafkajs-consumer config: '${error?.path.slice(1).replaceAll("/", ".") ?? ""}' ${error?.message ?? "is not valid"}`,
    );
  }
  return json;
}

/** KafkaJS 2.2.4's production retry defaults (src/retry/defaults.js). */
export const KAFKAJS_RETRY_DEFAULTS = { maxRetryTime: 30_000, initialRetryTime: 300, factor: 0.2, multiplier: 2, retries: 5 } as const;
