import { type Static, Type } from "@sinclair/typebox";

/**
 * The scenario file format (JSON). Times are milliseconds of virtual time.
 * Every object is closed (unknown keys are errors), so a typo in a fault or
 * a setting is reported instead of silently ignored.
 */
const Closed = { additionalProperties: false } as const;
const Ms = Type.Number({ minimum: 0 });
const Probability = Type.Number({ minimum: 0, maximum: 1 });
const Names = Type.Array(Type.String({ minLength: 1 }), { minItems: 1 });

export const DelaySchema = Type.Union([
  Type.Object({ dist: Type.Literal("fixed"), ms: Ms }, Closed),
  Type.Object({ dist: Type.Literal("uniform"), minMs: Ms, maxMs: Ms }, Closed),
  Type.Object({ dist: Type.Literal("normal"), meanMs: Ms, stddevMs: Ms }, Closed),
  Type.Object({ dist: Type.Literal("exponential"), meanMs: Ms }, Closed),
  Type.Object(
    { dist: Type.Literal("pareto"), scaleMs: Type.Number({ exclusiveMinimum: 0 }), shape: Type.Number({ exclusiveMinimum: 0 }) },
    Closed,
  ),
]);

const NetworkModeSchema = Type.Union([Type.Literal("connection"), Type.Literal("datagram")]);

export const MessageFaultSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    from: Type.Optional(Names),
    to: Type.Optional(Names),
    types: Type.Optional(Names),
    startMs: Type.Optional(Ms),
    endMs: Type.Optional(Ms),
    drop: Type.Optional(
      Type.Union([
        Type.Object({ probability: Probability }, Closed),
        Type.Object(
          {
            gilbertElliott: Type.Object(
              { pGoodToBad: Probability, pBadToGood: Probability, lossInGood: Probability, lossInBad: Probability },
              Closed,
            ),
          },
          Closed,
        ),
      ]),
    ),
    delay: Type.Optional(DelaySchema),
    duplicate: Type.Optional(Type.Object({ probability: Probability, delay: Type.Optional(DelaySchema) }, Closed)),
    reorder: Type.Optional(Type.Object({ probability: Probability, delay: DelaySchema }, Closed)),
    bandwidth: Type.Optional(Type.Object({ bytesPerSecond: Type.Number({ exclusiveMinimum: 0 }) }, Closed)),
    corrupt: Type.Optional(
      Type.Object({ probability: Probability, mode: Type.Union([Type.Literal("truncate"), Type.Literal("garbage")]) }, Closed),
    ),
  },
  Closed,
);

export const PartitionSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    a: Names,
    b: Names,
    direction: Type.Union([Type.Literal("two-way"), Type.Literal("a-to-b"), Type.Literal("b-to-a")]),
    startMs: Ms,
    endMs: Ms,
  },
  Closed,
);

export const NemesisStepSchema = Type.Object(
  {
    atMs: Ms,
    actor: Type.String({ minLength: 1 }),
    action: Type.Union([
      Type.Literal("crash"),
      Type.Literal("restart"),
      Type.Literal("pause"),
      Type.Literal("resume"),
      Type.Literal("clock-step"),
      Type.Literal("command"),
    ]),
    deltaMs: Type.Optional(Type.Number()),
    command: Type.Optional(Type.Object({ command: Type.String({ minLength: 1 }) }, { additionalProperties: true })),
  },
  Closed,
);

export const ActorSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: "^[A-Za-z0-9][A-Za-z0-9._:-]*$" }),
    kind: Type.String({ minLength: 1 }),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    startAtMs: Type.Optional(Ms),
  },
  Closed,
);

const Settings = Type.Record(Type.String(), Type.Unknown());

/** The Kafka cluster of a scenario: coordinators (and, with the data path, brokers) and topics. */
export const ClusterSchema = Type.Object(
  {
    /** Group coordinator actors: coordinator-0 .. coordinator-(n-1); a group lives on partitionFor(group) mod n. */
    coordinators: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
    /** Data brokers broker-0 .. broker-(n-1) and one controller: the data path (partition leaders, replication). 0 = none. */
    brokers: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    /**
     * Transaction coordinators txn-coordinator-0 .. txn-coordinator-(n-1) (needs brokers): transactional
     * producers and consume-process-produce groups with a transactional output. 0 = none.
     */
    transactionCoordinators: Type.Optional(Type.Integer({ minimum: 0, maximum: 50 })),
    topics: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1 }),
          partitions: Type.Integer({ minimum: 1 }),
          id: Type.Optional(Type.String({ minLength: 1 })),
          /** Replicas per partition (default min(3, brokers)). */
          replicationFactor: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        Closed,
      ),
    ),
    /** Broker settings (Kafka names), e.g. "group.consumer.session.timeout.ms". */
    broker: Type.Optional(Settings),
  },
  Closed,
);

/** A consumer group, expanded into member actors `<idPrefix>1 .. <idPrefix>N`. */
export const GroupSchema = Type.Object(
  {
    groupId: Type.String({ minLength: 1 }),
    /** "consumer" = KIP-848; "eager" / "cooperative" = the classic protocol with range / cooperative-sticky. */
    protocol: Type.Optional(Type.Union([Type.Literal("consumer"), Type.Literal("eager"), Type.Literal("cooperative")])),
    /**
     * Which client the members run: kcsim's model of Kafka's Java consumer ("kcsim", the default), or
     * KafkaJS 2.2.4's real code in virtual time ("kafkajs": a classic eager group; `consumer` holds KafkaJS's
     * consumer options by their KafkaJS names, `app` {handler, processingMsPerRecord}; the inline host only).
     */
    client: Type.Optional(Type.Union([Type.Literal("kcsim"), Type.Literal("kafkajs")])),
    members: Type.Integer({ minimum: 1 }),
    idPrefix: Type.Optional(Type.String({ minLength: 1 })),
    /** Give every member a group.instance.id (its actor id): static membership. */
    static: Type.Optional(Type.Boolean()),
    subscription: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    /** Consumer settings (Kafka names) for every member. */
    consumer: Type.Optional(Settings),
    /**
     * The application: processing time per record, callback durations, commit mode, and what it does with each
     * batch: mode ("poll" | "consume-process-produce"), output ({topic, transactional, producer}), sink
     * ("append" | "upsert"). See the member's ApplicationConfig.
     */
    app: Type.Optional(Settings),
    /** Where records come from: {"kind": "synthetic", ...} or the data path. */
    source: Type.Optional(Settings),
    startAtMs: Type.Optional(Ms),
    /** Start members this far apart (member i at startAtMs + (i-1) * staggerMs). */
    staggerMs: Type.Optional(Ms),
    /** Members that join later: `count` more members at `atMs`. */
    joins: Type.Optional(Type.Array(Type.Object({ atMs: Ms, count: Type.Integer({ minimum: 1 }) }, Closed))),
    /**
     * Rolling replacements: at `atMs` member N closes (leaves the group) and a
     * new process `<id>-r` joins under `protocol` (a rolling upgrade from the
     * classic protocol to the consumer protocol, or back).
     */
    replacements: Type.Optional(
      Type.Array(
        Type.Object(
          {
            member: Type.Integer({ minimum: 1 }),
            atMs: Ms,
            protocol: Type.Union([Type.Literal("consumer"), Type.Literal("eager"), Type.Literal("cooperative")]),
          },
          Closed,
        ),
      ),
    ),
    /** Per-member overrides by member number (1-based): consumer settings and app. */
    overrides: Type.Optional(
      Type.Array(
        Type.Object({ member: Type.Integer({ minimum: 1 }), consumer: Type.Optional(Settings), app: Type.Optional(Settings) }, Closed),
      ),
    ),
  },
  Closed,
);

/** Producers `<idPrefix>1 .. <idPrefix>N` writing a workload to the brokers. */
export const ProducerGroupSchema = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1 })),
    idPrefix: Type.Optional(Type.String({ minLength: 1 })),
    /** Producer settings (Kafka names), e.g. "acks", "linger.ms". */
    producer: Type.Optional(Settings),
    /** {topic, recordsPerSecond, keys, valueBytes, bursts, stopAtMs}: see the producer actor. */
    workload: Settings,
    /**
     * Transactions ({recordsPerTransaction, transactionMs, abortRatio}: see the producer actor): each producer gets
     * transactional.id = its actor id (or producer["transactional.id"] + "-" + its number) and the cluster's
     * transaction coordinators.
     */
    transaction: Type.Optional(Settings),
    startAtMs: Type.Optional(Ms),
  },
  Closed,
);

export const ScenarioSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    seed: Type.Optional(Type.Integer({ minimum: 0 })),
    durationMs: Type.Number({ exclusiveMinimum: 0 }),
    codec: Type.Optional(Type.Boolean()),
    /**
     * How messages travel. "connection" (the default): TCP-like connections
     * with Kafka's semantics (in order, at most once, one request served at a
     * time per connection); "datagram": each message dropped, duplicated,
     * reordered or delayed on its own (stress beyond what TCP allows). The
     * object form also sets the latency and how long a broken connection
     * takes to notice.
     */
    network: Type.Optional(
      Type.Union([
        NetworkModeSchema,
        Type.Object(
          {
            mode: Type.Optional(NetworkModeSchema),
            minLatencyMs: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
            latency: Type.Optional(DelaySchema),
            breakDetection: Type.Optional(DelaySchema),
          },
          Closed,
        ),
      ]),
    ),
    restartPolicy: Type.Optional(
      Type.Union([
        Type.Object({ mode: Type.Literal("stop") }, Closed),
        Type.Object({ mode: Type.Literal("ignore") }, Closed),
        Type.Object({ mode: Type.Literal("restart"), delayMs: Ms }, Closed),
      ]),
    ),
    cluster: Type.Optional(ClusterSchema),
    groups: Type.Optional(Type.Array(GroupSchema)),
    producers: Type.Optional(Type.Array(ProducerGroupSchema)),
    actors: Type.Optional(Type.Array(ActorSchema)),
    faults: Type.Optional(Type.Array(MessageFaultSchema)),
    partitions: Type.Optional(Type.Array(PartitionSchema)),
    nemesis: Type.Optional(Type.Array(NemesisStepSchema)),
    checkers: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    /** Run every group under this protocol, whatever the groups say (what `run --protocol` and `hunt --protocol` record). */
    protocol: Type.Optional(Type.Union([Type.Literal("consumer"), Type.Literal("eager"), Type.Literal("cooperative")])),
    /** Planted bugs to enable (names from @kcsim/protocol's PLANTED_BUGS; what `hunt --bug` records). */
    bugs: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  },
  Closed,
);

export type ScenarioFile = Static<typeof ScenarioSchema>;
export type ClusterSpec = Static<typeof ClusterSchema>;
export type GroupSpec = Static<typeof GroupSchema>;
export type ProducerGroupSpec = Static<typeof ProducerGroupSchema>;
