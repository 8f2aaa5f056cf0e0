import { createRequire } from "node:module";
import type { Actor, ActorId, Context, ControlCommand, JsonValue, Message } from "@kcsim/protocol";
import type { Consumer, EachBatchPayload, EachMessagePayload, Kafka, KafkaConfig, LogEntry, logLevel as LogLevel } from "kafkajs";
import { WireClientGateway } from "../wire-clients/wire-client-gateway.js";
import { ActorEnvironment, JS_TIMER } from "./actor-environment.js";
import { KAFKAJS_RETRY_DEFAULTS, type KafkaJSConsumerConfig, parseKafkaJSConsumerConfig } from "./kafkajs-consumer-config.js";
import { SimSocket } from "./sim-socket.js";

/** The actor kind scenarios name (groups with `"client": "kafkajs"` expand into it). */
export const KAFKAJS_CONSUMER_KIND = "kafkajs-consumer";

type KafkaJSModule = typeof import("kafkajs");
let kafkajs: KafkaJSModule | null = null;

/** KafkaJS, loaded on first use (a CommonJS module; most runs never need it). */
function loadKafkaJS(): KafkaJSModule {
  kafkajs ??= createRequire(import.meta.url)("kafkajs") as KafkaJSModule;
  return kafkajs;
}

/**
 * A KafkaJS 2.2.4 consumer in a group, with its real code, as an actor in
 * virtual time (the inline host runs it in its async stepping mode, see
 * docs/kafkajs-in-virtual-time.md). Its sockets come from KafkaJS's
 * `socketFactory`: each is a SimSocket whose bytes the actor's
 * WireClientGateway serves over simulated connections to the broker and
 * coordinator actors, so faults apply to them; everything it reads from the
 * environment (timers, Date, Math.random) is the actor's ActorEnvironment.
 *
 * On start it connects, subscribes and runs `eachMessage` (or `eachBatch`);
 * the handler reports what it is handed as `member.records` and spends
 * `app.processingMsPerRecord` of virtual time per record. The gateway
 * reports the membership (JoinGroup/SyncGroup), commits and resets as a
 * simulated member's would. KafkaJS's own events are observed as
 * `kafkajs.group-join` and `kafkajs.crash`.
 *
 * Commands: `pause-app` / `resume-app` (the handler stops between records,
 * so KafkaJS neither heartbeats from it nor fetches: a stuck application),
 * `close` (consumer.disconnect(): leaves the group).
 */
export class KafkaJSConsumerActor implements Actor {
  readonly #id: ActorId;
  readonly #config: KafkaJSConsumerConfig;
  #env: ActorEnvironment | null = null;
  #gateway: WireClientGateway | null = null;
  #consumer: Consumer | null = null;
  #sockets = 0;
  #appPaused: { readonly resumed: Promise<void>; readonly resume: () => void } | null = null;

  constructor(id: ActorId, config: KafkaJSConsumerConfig) {
    this.#id = id;
    this.#config = config;
  }

  start(ctx: Context): void {
    const env = new ActorEnvironment(ctx);
    this.#env = env;
    this.#gateway = new WireClientGateway(this.#config.wire, () => ctx, "application");
    env.run(() => this.#boot(ctx));
  }

  receive(from: ActorId, message: Message, _ctx: Context): void {
    const gateway = this.#gateway;
    if (gateway !== null) this.#inside(() => gateway.receive(from, message));
  }

  fire(timer: string, _ctx: Context): void {
    if (timer === JS_TIMER) this.#env?.fire();
  }

  control(command: ControlCommand, ctx: Context): void {
    this.#inside(() => {
      switch (command.command) {
        case "pause-app":
          if (this.#appPaused === null) {
            let resume = () => {};
            const resumed = new Promise<void>((done) => {
              resume = done;
            });
            this.#appPaused = { resumed, resume };
          }
          return;
        case "resume-app": {
          const paused = this.#appPaused;
          this.#appPaused = null;
          paused?.resume();
          return;
        }
        case "close":
          this.#consumer?.disconnect().catch((error: unknown) => this.#failed(ctx, "disconnect", error));
          return;
        default:
      }
    });
  }

  snapshot(): JsonValue {
    return { sockets: this.#gateway?.openSockets ?? 0, timers: this.#env?.pending ?? 0, appPaused: this.#appPaused !== null };
  }

  #inside(fn: () => void): void {
    const env = this.#env;
    if (env !== null) env.run(fn);
  }

  #boot(ctx: Context): void {
    const { Kafka, logLevel } = loadKafkaJS();
    const options = this.#config.kafkajs;
    const retry = { ...KAFKAJS_RETRY_DEFAULTS, ...options.retry };
    const gateway = this.#gateway as WireClientGateway;
    const config: KafkaConfig = {
      clientId: this.#id,
      brokers: this.#config.wire.nodes.map((n) => `${n.host}:${n.port}`),
      retry,
      logLevel: logLevel.INFO,
      logCreator: () => (entry: LogEntry) => this.#log(ctx, entry, logLevel),
      socketFactory: ({ host, port, onConnect }) => {
        const node = gateway.nodeAt(host, port);
        if (node === undefined) throw new Error(`getaddrinfo ENOTFOUND ${host}:${port}`);
        return new SimSocket(gateway, ++this.#sockets, node.nodeId, onConnect) as unknown as ReturnType<
          NonNullable<KafkaConfig["socketFactory"]>
        >;
      },
      ...(options.connectionTimeout !== undefined ? { connectionTimeout: options.connectionTimeout } : {}),
      ...(options.requestTimeout !== undefined ? { requestTimeout: options.requestTimeout } : {}),
    };
    const kafka: Kafka = new Kafka(config);
    const consumer = kafka.consumer({
      groupId: this.#config.groupId,
      retry,
      ...pick(options, [
        "sessionTimeout",
        "rebalanceTimeout",
        "heartbeatInterval",
        "metadataMaxAge",
        "allowAutoTopicCreation",
        "maxBytesPerPartition",
        "minBytes",
        "maxBytes",
        "maxWaitTimeInMs",
        "readUncommitted",
        "maxInFlightRequests",
      ]),
    });
    this.#consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      const { memberId, isLeader, memberAssignment } = event.payload;
      ctx.observe({ type: "kafkajs.group-join", memberId, isLeader, assignment: memberAssignment as unknown as JsonValue });
    });
    consumer.on(consumer.events.CRASH, (event) => {
      const { error, restart } = event.payload;
      ctx.observe({ type: "kafkajs.crash", error: `${error.name}: ${error.message}`, restart });
    });
    const run = async () => {
      await consumer.connect();
      await consumer.subscribe({ topics: [...this.#config.subscription], fromBeginning: options.fromBeginning ?? true });
      const runOptions = {
        ...pick(options, ["autoCommit", "autoCommitInterval", "autoCommitThreshold"]),
      };
      if ((this.#config.app.handler ?? "eachMessage") === "eachBatch") {
        await consumer.run({ ...runOptions, eachBatch: (payload) => this.#eachBatch(payload) });
      } else {
        await consumer.run({ ...runOptions, eachMessage: (payload) => this.#eachMessage(payload) });
      }
    };
    run().catch((error: unknown) => this.#failed(ctx, "run", error));
  }

  async #eachMessage({ topic, partition, message }: EachMessagePayload): Promise<void> {
    await this.#appPaused?.resumed;
    const offset = Number(message.offset);
    (this.#gateway as WireClientGateway).membership.consumed([{ topic, partition, firstOffset: offset, lastOffset: offset, count: 1 }]);
    await this.#process(1);
  }

  async #eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) return;
      await this.#appPaused?.resumed;
      const offset = Number(message.offset);
      (this.#gateway as WireClientGateway).membership.consumed([
        { topic: batch.topic, partition: batch.partition, firstOffset: offset, lastOffset: offset, count: 1 },
      ]);
      await this.#process(1);
      resolveOffset(message.offset);
      await heartbeat();
    }
  }

  /** The application's time for `records` records (virtual). */
  async #process(records: number): Promise<void> {
    const ms = (this.#config.app.processingMsPerRecord ?? 0) * records;
    if (ms > 0) await new Promise((done) => setTimeout(done, ms));
  }

  #log(ctx: Context, entry: LogEntry, levels: typeof LogLevel): void {
    const { message, ...extra } = entry.log;
    const fields = { namespace: entry.namespace, ...(JSON.parse(JSON.stringify(extra)) as Record<string, JsonValue>) };
    if (entry.level === levels.ERROR) ctx.log.warn(message, fields);
    else if (entry.level === levels.WARN) ctx.log.info(message, fields);
    else ctx.log.debug(message, fields);
  }

  #failed(ctx: Context, during: string, error: unknown): void {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    ctx.observe({ type: "kafkajs.error", during, error: text });
  }
}

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

export function createKafkaJSConsumer(id: ActorId, config: JsonValue): KafkaJSConsumerActor {
  return new KafkaJSConsumerActor(id, parseKafkaJSConsumerConfig(config));
}
