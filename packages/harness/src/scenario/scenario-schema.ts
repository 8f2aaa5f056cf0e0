import { type Static, Type } from "@sinclair/typebox";
import { KafkaJSConsumerOptionsSchema } from "../kafkajs/kafkajs-consumer-config.js";
import { KAFKA_SETTINGS_KEYWORD, type KafkaSettingsKind } from "./kafka-settings-schema.js";
import {
  MAX_DURATION_MS,
  MAX_MEMBERS,
  MAX_PARTITIONS,
  MAX_PRODUCERS,
  MAX_SEED,
  MAX_TIME_MS,
  MIN_LATENCY_MS,
  MIN_RESTART_DELAY_MS,
} from "./limits.js";

/**
 * The scenario file format (JSON). Times are milliseconds of virtual time.
 * Every object is closed (unknown keys are errors), so a typo in a fault or
 * a setting is reported instead of silently ignored.
 *
 * This TypeBox schema is also the source of the JSON Schema shipped at
 * schema/scenario.schema.json (`kcsim schema` writes it): every field
 * carries a description, and every settings object names the ConfigDef its
 * settings follow, which the JSON Schema expands into one property per
 * Kafka setting with its default and bounds.
 */
const Closed = { additionalProperties: false } as const;
const Ms = (description: string) =>
  Type.Number({ minimum: 0, maximum: MAX_TIME_MS, description: `${description} Milliseconds of virtual time, 0 to ${MAX_TIME_MS}.` });
const Probability = (description: string) => Type.Number({ minimum: 0, maximum: 1, description: `${description} 0 to 1.` });
const Names = (description: string) =>
  Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: `${description} Actor ids or globs with *.` });
const Protocol = (description: string) =>
  Type.Union([Type.Literal("consumer"), Type.Literal("eager"), Type.Literal("cooperative")], {
    description: `${description} "consumer": KIP-848 (Kafka's group.protocol=consumer); "eager" / "cooperative": the classic protocol (group.protocol=classic) with the range / cooperative-sticky assignor.`,
  });
/** A settings object whose keys are Kafka's setting names, resolved by the ConfigDef `kind`. */
const KafkaSettings = (kind: KafkaSettingsKind, description: string) =>
  Type.Record(Type.String(), Type.Unknown(), { description, [KAFKA_SETTINGS_KEYWORD]: kind });
/** A settings object of kcsim's own (application, record source, workload): described in words. */
const Settings = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

const delayOf = (what: string) =>
  Type.Union(
    [
      Type.Object(
        { dist: Type.Literal("fixed", { description: "Always the same delay." }), ms: Ms("The delay.") },
        { ...Closed, description: "A fixed delay." },
      ),
      Type.Object(
        {
          dist: Type.Literal("uniform", { description: "Uniform between minMs and maxMs." }),
          minMs: Ms("The shortest delay."),
          maxMs: Ms("The longest delay."),
        },
        { ...Closed, description: "A uniform delay." },
      ),
      Type.Object(
        {
          dist: Type.Literal("normal", { description: "Normal (Gaussian), cut at 0." }),
          meanMs: Ms("The mean."),
          stddevMs: Ms("The standard deviation."),
        },
        { ...Closed, description: "A normally distributed delay." },
      ),
      Type.Object(
        { dist: Type.Literal("exponential", { description: "Exponential (memoryless)." }), meanMs: Ms("The mean.") },
        { ...Closed, description: "An exponentially distributed delay." },
      ),
      Type.Object(
        {
          dist: Type.Literal("pareto", { description: "Pareto: a heavy tail (rare, very long delays)." }),
          scaleMs: Type.Number({ exclusiveMinimum: 0, maximum: MAX_TIME_MS, description: "The scale (the smallest delay), ms > 0." }),
          shape: Type.Number({ minimum: 0.01, maximum: 1000, description: "The shape (smaller: heavier tail), 0.01 to 1000." }),
        },
        { ...Closed, description: "A Pareto-distributed delay." },
      ),
    ],
    { description: what },
  );

export const DelaySchema = delayOf("A delay distribution.");

const NetworkModeSchema = Type.Union([Type.Literal("connection"), Type.Literal("datagram")], {
  description: '"connection" (TCP-like connections, the default) or "datagram" (each message on its own).',
});

export const MessageFaultSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: "The fault's name: the history's send records name the fault that touched them." }),
    from: Type.Optional(Names("Senders it applies to (default: any).")),
    to: Type.Optional(Names("Receivers it applies to (default: any).")),
    types: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description: "Message types it applies to, e.g. ConsumerGroupHeartbeatResponse, or globs with * (default: any).",
      }),
    ),
    startMs: Type.Optional(Ms("Sends at or after this time are affected (default 0).")),
    endMs: Type.Optional(Ms("Sends before this time are affected (default: to the end of the run; a fault without an end never heals).")),
    drop: Type.Optional(
      Type.Union(
        [
          Type.Object({ probability: Probability("The chance that a message is lost.") }, { ...Closed, description: "Independent loss." }),
          Type.Object(
            {
              gilbertElliott: Type.Object(
                {
                  pGoodToBad: Probability("Per message, the chance the link turns bad."),
                  pBadToGood: Probability("Per message, the chance a bad link recovers."),
                  lossInGood: Probability("Loss while the link is good."),
                  lossInBad: Probability("Loss while the link is bad."),
                },
                { ...Closed, description: "A two-state Markov chain per link, advanced once per message." },
              ),
            },
            { ...Closed, description: "Burst loss (Gilbert-Elliott)." },
          ),
        ],
        {
          description:
            "Lose messages. On connections (the default network) a loss breaks the connection the message rides: it and everything after it on that connection are lost, and both ends notice after a drawn delay.",
        },
      ),
    ),
    delay: Type.Optional(delayOf("Add this delay to every matching message (on a connection it holds back everything behind it).")),
    duplicate: Type.Optional(
      Type.Object(
        {
          probability: Probability("The chance that a message is delivered twice."),
          delay: Type.Optional(delayOf("How much later the copy arrives (default: with the original).")),
        },
        { ...Closed, description: "Deliver messages twice (datagram network only)." },
      ),
    ),
    reorder: Type.Optional(
      Type.Object(
        {
          probability: Probability("The chance that a message is held back."),
          delay: delayOf("How long it is held back: it may overtake or be overtaken."),
        },
        { ...Closed, description: "Hold messages back so that they leave FIFO order (datagram network only)." },
      ),
    ),
    bandwidth: Type.Optional(
      Type.Object(
        {
          bytesPerSecond: Type.Number({
            minimum: 1,
            maximum: 1e12,
            description: "Encoded frame bytes per second on each link, 1 to 1e12.",
          }),
        },
        { ...Closed, description: "Serialise matching messages on each link at this rate." },
      ),
    ),
    corrupt: Type.Optional(
      Type.Object(
        {
          probability: Probability("The chance that a frame is damaged."),
          mode: Type.Union([Type.Literal("truncate"), Type.Literal("garbage")], {
            description: '"truncate": cut the frame short; "garbage": replace it with bytes that are not msgpack.',
          }),
        },
        { ...Closed, description: "Damage frames in flight: the receiver counts and drops them." },
      ),
    ),
  },
  {
    ...Closed,
    description: "A message fault: applies to a message whose sender, receiver, type and send time all match.",
  },
);

export const PartitionSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: "The partition's name: blocked sends name it." }),
    a: Names("One side."),
    b: Names("The other side."),
    direction: Type.Union([Type.Literal("two-way"), Type.Literal("a-to-b"), Type.Literal("b-to-a")], {
      description: '"two-way" blocks both directions; "a-to-b" only messages from a to b; "b-to-a" the reverse.',
    }),
    startMs: Ms("When it starts."),
    endMs: Ms("When it heals."),
  },
  { ...Closed, description: "A network partition between two sets of actors." },
);

export const NemesisStepSchema = Type.Object(
  {
    atMs: Ms("When the step happens."),
    actor: Type.String({ minLength: 1, description: "The actor it happens to (its id)." }),
    action: Type.Union(
      [
        Type.Literal("crash"),
        Type.Literal("restart"),
        Type.Literal("pause"),
        Type.Literal("resume"),
        Type.Literal("clock-step"),
        Type.Literal("command"),
      ],
      {
        description:
          '"crash": the process dies (volatile state lost, the durable log kept); "restart": it starts again; "pause" / "resume": the whole process stops and goes on (no heartbeats); "clock-step": its clock jumps by deltaMs; "command": tell the actor something, e.g. {"command": "pause-app"} pauses a member\'s application thread (heartbeats go on), {"command": "close"} closes a consumer.',
      },
    ),
    deltaMs: Type.Optional(
      Type.Number({
        minimum: -MAX_TIME_MS,
        maximum: MAX_TIME_MS,
        description: "clock-step: how far the clock jumps, ms (negative: back). Required for clock-step.",
      }),
    ),
    command: Type.Optional(
      Type.Object(
        { command: Type.String({ minLength: 1, description: "The command's name, e.g. pause-app, resume-app, close." }) },
        {
          additionalProperties: true,
          description: "command: what to tell the actor, with the command's own fields. Required for command.",
        },
      ),
    ),
  },
  { ...Closed, description: "A process fault or command at a time (the nemesis)." },
);

/** Actor ids name log files and appear in commands: letters, digits and . _ : - only. */
const ACTOR_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:-]*$";

export const ActorSchema = Type.Object(
  {
    id: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: ACTOR_ID_PATTERN,
      description: "The actor's id: letters, digits, '.', '_', ':' and '-', starting with a letter or digit.",
    }),
    kind: Type.String({
      minLength: 1,
      description:
        "The actor kind: one of kcsim's (pinger, ponger, consumer, classic-consumer, group-coordinator, broker, controller, producer, transaction-coordinator) or a custom kind of the actor registry the run is given.",
    }),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The kind's JSON config (default {})." })),
    startAtMs: Type.Optional(Ms("When it starts (default 0).")),
  },
  { ...Closed, description: "One actor, built from its kind with a JSON config." },
);

/** The Kafka cluster of a scenario: coordinators (and, with the data path, brokers) and topics. */
export const ClusterSchema = Type.Object(
  {
    coordinators: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 50,
        description:
          "Group coordinator actors coordinator-0 .. coordinator-(n-1); a group lives on coordinator partitionFor(group.id) mod n (Kafka: the leader of its __consumer_offsets partition). Default 1; 1 to 50.",
      }),
    ),
    brokers: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        description:
          "Data brokers broker-0 .. broker-(n-1) and one controller: the data path (partition leaders, replication, fetch sessions). Default 0 (none: groups read synthetic records); 0 to 100.",
      }),
    ),
    transactionCoordinators: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 50,
        description:
          "Transaction coordinators txn-coordinator-0 .. txn-coordinator-(n-1) (needs brokers): transactional producers and consume-process-produce groups with a transactional output. Default 0; 0 to 50.",
      }),
    ),
    topics: Type.Array(
      Type.Object(
        {
          name: Type.String({
            minLength: 1,
            maxLength: 249,
            pattern: "^[a-zA-Z0-9._-]+$",
            description: "The topic's name: Kafka's legal names, up to 249 of [a-zA-Z0-9._-], not '.' or '..'.",
          }),
          partitions: Type.Integer({
            minimum: 1,
            maximum: MAX_PARTITIONS,
            description: `Its partition count (Kafka's num.partitions for this topic), 1 to ${MAX_PARTITIONS}.`,
          }),
          id: Type.Optional(Type.String({ minLength: 1, description: "Its topic id (default: derived from the name)." })),
          replicationFactor: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 100,
              description: "Replicas per partition (Kafka's replication.factor); default min(3, brokers); at most brokers.",
            }),
          ),
        },
        { ...Closed, description: "A topic." },
      ),
      { description: "The cluster's topics." },
    ),
    features: Type.Optional(
      Type.Object(
        {
          "transaction.version": Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 2,
              description:
                "The finalized transaction.version feature: 2 runs transactions under KIP-890 part 2 (transaction version 2, as Kafka 4.2 does: an epoch bump at each transaction's end, EndTxn v5, partitions and offsets added by the leader and the group coordinator, no AddPartitionsToTxn or AddOffsetsToTxn from the producer, strict marker epochs); 0 and 1 the protocol before it (kcsim does not model 1's transaction log format, its only difference from 0). Default 0; new Kafka 4.x clusters finalize 2.",
            }),
          ),
        },
        { ...Closed, description: "The cluster's finalized features, by Kafka's names (what clients read from ApiVersions)." },
      ),
    ),
    broker: Type.Optional(
      KafkaSettings(
        "broker",
        "Broker settings, by Kafka's names (e.g. \"group.consumer.session.timeout.ms\"), for the coordinators, brokers and transaction coordinators. Default {} (Kafka's defaults).",
      ),
    ),
  },
  { ...Closed, description: "The Kafka cluster: group coordinators, optional data brokers and transaction coordinators, and topics." },
);

/** A consumer group, expanded into member actors `<idPrefix>1 .. <idPrefix>N`. */
export const GroupSchema = Type.Object(
  {
    groupId: Type.String({ minLength: 1, description: "The group's id (Kafka's group.id)." }),
    protocol: Type.Optional(Protocol('The rebalance protocol (default "consumer").')),
    client: Type.Optional(
      Type.Union([Type.Literal("kcsim"), Type.Literal("kafkajs")], {
        description:
          "Which client the members run: kcsim's model of Kafka's Java consumer (\"kcsim\", the default), or KafkaJS 2.2.4's real code in virtual time (\"kafkajs\": a classic eager group on the inline host; kafkajs then holds KafkaJS's options by their KafkaJS names, consumer is refused, app {handler, processingMsPerRecord}).",
      }),
    ),
    members: Type.Integer({
      minimum: 1,
      maximum: MAX_MEMBERS,
      description: `How many members start: actors <idPrefix>1 .. <idPrefix>N. 1 to ${MAX_MEMBERS}.`,
    }),
    idPrefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: ACTOR_ID_PATTERN,
        description: 'The members\' actor id prefix (default "member-").',
      }),
    ),
    static: Type.Optional(
      Type.Boolean({
        description: "Give every member a group.instance.id (its actor id): static membership (KIP-345). Default false.",
      }),
    ),
    subscription: Type.Array(Type.String({ minLength: 1 }), {
      minItems: 1,
      description: "The topics every member subscribes to (topics of the cluster).",
    }),
    consumer: Type.Optional(
      KafkaSettings(
        "consumer",
        "Consumer settings for every member, by Kafka's names (group.id, client.id, group.protocol and group.instance.id are set from the group). Default {} (Kafka's defaults).",
      ),
    ),
    kafkajs: Type.Optional(KafkaJSConsumerOptionsSchema),
    app: Type.Optional(
      Settings(
        'The application around each consumer: processingMsPerRecord (default 1), pollTimeoutMs (default 1000, > 0), revokeCallbackMs / assignCallbackMs / lostCallbackMs (time spent in the rebalance listener, default 0), commit ("auto" = enable.auto.commit, "sync-after-batch", "none"), mode ("poll", or "consume-process-produce" with output {topic, transactional, producer} and sink "append" | "upsert").',
      ),
    ),
    source: Type.Optional(
      Settings(
        'Where records come from: {"kind": "synthetic", "recordsPerSecondPerPartition": 10, "recordBytes": 100} (default: an in-memory log per partition that grows at that rate) or {"kind": "fetch"} (the data brokers through the real fetcher; needs cluster.brokers).',
      ),
    ),
    startAtMs: Type.Optional(Ms("When the first member starts (default 0).")),
    staggerMs: Type.Optional(Ms("Start members this far apart: member i at startAtMs + (i-1) * staggerMs (default 0).")),
    joins: Type.Optional(
      Type.Array(
        Type.Object(
          {
            atMs: Ms("When they join."),
            count: Type.Integer({ minimum: 1, maximum: MAX_MEMBERS, description: "How many members join, >= 1." }),
          },
          { ...Closed, description: "count more members start at atMs." },
        ),
        { description: "Members that join later, numbered after the first ones." },
      ),
    ),
    withoutMembers: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: MAX_MEMBERS }), {
        minItems: 1,
        uniqueItems: true,
        description:
          "Member numbers that do not run (kcsim shrink writes it when it leaves members out); every other member keeps its number, id and start time, so a pinned schedule still names the same actors.",
      }),
    ),
    replacements: Type.Optional(
      Type.Array(
        Type.Object(
          {
            member: Type.Integer({ minimum: 1, maximum: MAX_MEMBERS, description: "The member number (1-based) that is replaced." }),
            atMs: Ms("When the member closes; its replacement starts half a second later."),
            protocol: Protocol("The protocol the replacement process speaks."),
          },
          { ...Closed, description: "A rolling replacement: member N closes (leaves the group) and a new process <id>-r joins." },
        ),
        { description: "Rolling replacements, e.g. a rolling upgrade from the classic protocol to the consumer protocol." },
      ),
    ),
    overrides: Type.Optional(
      Type.Array(
        Type.Object(
          {
            member: Type.Integer({ minimum: 1, maximum: MAX_MEMBERS, description: "The member number (1-based)." }),
            consumer: Type.Optional(KafkaSettings("consumer", "Consumer settings of this member, over the group's.")),
            app: Type.Optional(Settings("Application settings of this member, over the group's (see the group's app).")),
          },
          { ...Closed, description: "Settings of one member." },
        ),
        { description: "Per-member overrides by member number." },
      ),
    ),
  },
  { ...Closed, description: "A consumer group, expanded into member actors <idPrefix>1 .. <idPrefix>N." },
);

/** Producers `<idPrefix>1 .. <idPrefix>N` writing a workload to the brokers. */
export const ProducerGroupSchema = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PRODUCERS, description: "How many producers (default 1)." })),
    idPrefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: ACTOR_ID_PATTERN,
        description: 'The producers\' actor id prefix (default "producer-").',
      }),
    ),
    producer: Type.Optional(KafkaSettings("producer", 'Producer settings, by Kafka\'s names (e.g. "acks", "linger.ms"). Default {}.')),
    workload: Settings(
      'What each producer sends: {"topic", "recordsPerSecond", "keys": {"count", "dist": "uniform" | "zipf", "exponent"} | null, "valueBytes": {"dist": "fixed", "bytes"} (or uniform, normal, exponential, pareto in bytes), "bursts": [{"atMs", "durationMs", "recordsPerSecond"}], "stopAtMs"}.',
    ),
    transaction: Type.Optional(
      Settings(
        'Run the workload in transactions: {"recordsPerTransaction" (default 100), "transactionMs", "abortRatio" (0 to 1, default 0)}; each producer gets transactional.id = its actor id (or producer["transactional.id"] + "-" + its number). Needs cluster.transactionCoordinators.',
      ),
    ),
    startAtMs: Type.Optional(Ms("When they start (default 0).")),
  },
  { ...Closed, description: "Producers <idPrefix>1 .. <idPrefix>N writing a workload to the data brokers." },
);

export const ScenarioSchema = Type.Object(
  {
    $schema: Type.Optional(
      Type.String({
        description: "The JSON Schema this file follows (for editors), e.g. ../schema/scenario.schema.json. Ignored by kcsim.",
      }),
    ),
    name: Type.String({ minLength: 1, description: "The scenario's name: in every history, summary and report." }),
    description: Type.Optional(Type.String({ description: "What the scenario shows, in a sentence or two." })),
    seed: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SEED,
        description: "The run seed when none is given (--seed wins). Default 1; a safe integer >= 0.",
      }),
    ),
    durationMs: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_DURATION_MS,
      description: `How long the run lasts, ms of virtual time, > 0 and at most ${MAX_DURATION_MS}.`,
    }),
    codec: Type.Optional(
      Type.Boolean({ description: "Pass messages through the msgpack codec (copy semantics). Default true; false only for benchmarks." }),
    ),
    network: Type.Optional(
      Type.Union(
        [
          NetworkModeSchema,
          Type.Object(
            {
              mode: Type.Optional(NetworkModeSchema),
              minLatencyMs: Type.Optional(
                Type.Number({
                  minimum: MIN_LATENCY_MS,
                  maximum: MAX_TIME_MS,
                  description:
                    "No message arrives sooner than this (the lookahead the lockstep host runs in parallel within), ms. Default 0.5.",
                }),
              ),
              latency: Type.Optional(delayOf("The base latency of every message. Default uniform 0.5 to 1.5 ms.")),
              breakDetection: Type.Optional(
                delayOf("How long each end of a broken connection takes to notice the break. Default uniform 1 to 1000 ms."),
              ),
            },
            { ...Closed, description: "The network, with its latencies." },
          ),
        ],
        {
          description:
            'How messages travel. "connection" (the default): each client talks to a server over a connection with TCP\'s and Kafka\'s semantics (in order, at most once, one request served at a time; a loss breaks it, a partition holds its bytes back). "datagram": each message is dropped, duplicated, reordered or delayed on its own (stress beyond what TCP allows). The object form also sets the latencies.',
        },
      ),
    ),
    restartPolicy: Type.Optional(
      Type.Union(
        [
          Type.Object(
            { mode: Type.Literal("stop", { description: "An actor that throws stays down." }) },
            { ...Closed, description: "Stop." },
          ),
          Type.Object(
            { mode: Type.Literal("ignore", { description: "An actor that throws goes on as if nothing happened." }) },
            { ...Closed, description: "Ignore." },
          ),
          Type.Object(
            {
              mode: Type.Literal("restart", { description: "An actor that throws crashes and restarts." }),
              delayMs: Type.Number({
                minimum: MIN_RESTART_DELAY_MS,
                maximum: MAX_TIME_MS,
                description: `How long after the crash it restarts, ms, at least ${MIN_RESTART_DELAY_MS}.`,
              }),
            },
            { ...Closed, description: "Restart." },
          ),
        ],
        { description: 'What happens to an actor whose code throws. Default {"mode": "restart", "delayMs": 1000}.' },
      ),
    ),
    cluster: Type.Optional(ClusterSchema),
    groups: Type.Optional(Type.Array(GroupSchema, { description: "Consumer groups (need a cluster)." })),
    producers: Type.Optional(Type.Array(ProducerGroupSchema, { description: "Producers (need cluster.brokers > 0)." })),
    actors: Type.Optional(
      Type.Array(ActorSchema, { description: "Actors besides the cluster's and the groups' (e.g. ping-pong pairs, custom actors)." }),
    ),
    faults: Type.Optional(Type.Array(MessageFaultSchema, { description: "Message faults, scoped by sender, receiver, type and time." })),
    partitions: Type.Optional(Type.Array(PartitionSchema, { description: "Network partitions." })),
    choices: Type.Optional(
      Type.Array(
        Type.Object(
          {
            link: Type.String({ minLength: 3, pattern: "^[^>]+>[^>]+$", description: 'The link: "sender>receiver".' }),
            n: Type.Integer({ minimum: 0, maximum: MAX_SEED, description: "The message's number on the link, from 0." }),
            fault: Type.String({ minLength: 1, description: "The fault (by name) whose decision fires." }),
            kind: Type.Union([Type.Literal("drop"), Type.Literal("corrupt"), Type.Literal("duplicate"), Type.Literal("reorder")], {
              description: "Which of its random effects fires.",
            }),
          },
          { ...Closed, description: "One pinned fault decision." },
        ),
        {
          description:
            "Pinned fault choices (what kcsim shrink writes): the faults' random decisions fire on exactly these messages instead of the seed's draws. Latencies and delay amounts still come from the seed.",
        },
      ),
    ),
    nemesis: Type.Optional(Type.Array(NemesisStepSchema, { description: "Process faults and commands at given times." })),
    checkers: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        description:
          "The checkers that judge the run, by name (default: the group checkers for a scenario with groups, plus no-loss with producers; actor-exceptions otherwise).",
      }),
    ),
    protocol: Type.Optional(
      Protocol("Run every group under this protocol, whatever the groups say (what run --protocol and hunt --protocol record)."),
    ),
    bugs: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description: "Planted bugs to enable, by name (kcsim hunt --list-bugs; what hunt --bug records). Default none.",
      }),
    ),
  },
  {
    ...Closed,
    title: "kcsim scenario",
    description: "A kcsim scenario: a Kafka cluster, consumer groups, producers, faults and checkers.",
  },
);

export type ScenarioFile = Static<typeof ScenarioSchema>;
export type ClusterSpec = Static<typeof ClusterSchema>;
export type GroupSpec = Static<typeof GroupSchema>;
export type ProducerGroupSpec = Static<typeof ProducerGroupSchema>;
export type MessageFaultSpec = Static<typeof MessageFaultSchema>;
export type PartitionSpec = Static<typeof PartitionSchema>;
export type NemesisStepSpec = Static<typeof NemesisStepSchema>;
