import { ConfigError, deepestError, type JsonValue } from "@kcsim/protocol";
import { type Static, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { WireClientConfigSchema } from "../wire-clients/wire-client-config.js";

const Closed = { additionalProperties: false } as const;
const Ms = Type.Integer({ minimum: 0 });

/** KafkaJS's RetryOptions. Given in full by default, so KafkaJS's own defaults (which differ under NODE_ENV=test) never apply. */
const RetrySchema = Type.Object(
  {
    maxRetryTime: Type.Optional(Ms),
    initialRetryTime: Type.Optional(Ms),
    factor: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    multiplier: Type.Optional(Type.Number({ minimum: 1 })),
    retries: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  Closed,
);

/** The KafkaJS consumer options a scenario may set (KafkaJS's names; `kafka.consumer({...})`). */
export const KafkaJSConsumerOptionsSchema = Type.Object(
  {
    sessionTimeout: Type.Optional(Ms),
    rebalanceTimeout: Type.Optional(Ms),
    heartbeatInterval: Type.Optional(Ms),
    metadataMaxAge: Type.Optional(Ms),
    allowAutoTopicCreation: Type.Optional(Type.Boolean()),
    maxBytesPerPartition: Type.Optional(Type.Integer({ minimum: 1 })),
    minBytes: Type.Optional(Type.Integer({ minimum: 0 })),
    maxBytes: Type.Optional(Type.Integer({ minimum: 1 })),
    maxWaitTimeInMs: Type.Optional(Ms),
    readUncommitted: Type.Optional(Type.Boolean()),
    maxInFlightRequests: Type.Optional(Type.Integer({ minimum: 1 })),
    retry: Type.Optional(RetrySchema),
    /** `new Kafka({...})` options. */
    connectionTimeout: Type.Optional(Ms),
    requestTimeout: Type.Optional(Ms),
    /** `consumer.run({...})` options. */
    autoCommitInterval: Type.Optional(Type.Union([Ms, Type.Null()])),
    autoCommitThreshold: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    autoCommit: Type.Optional(Type.Boolean()),
    /** `consumer.subscribe({ fromBeginning })`. */
    fromBeginning: Type.Optional(Type.Boolean()),
  },
  Closed,
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

const check = TypeCompiler.Compile(KafkaJSConsumerConfigSchema);

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
