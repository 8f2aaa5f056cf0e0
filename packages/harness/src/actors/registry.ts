import { createGroupCoordinator, createTransactionCoordinator } from "@kcsim/coordinator";
import { createBroker, createController, createProducer } from "@kcsim/fetch";
import { createClassicConsumerMember, createConsumerMember } from "@kcsim/member";
import type { ActorFactory } from "@kcsim/protocol";
import { createKafkaJSConsumer, KAFKAJS_CONSUMER_KIND } from "../kafkajs/kafkajs-consumer-actor.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import { createWireClient, WIRE_CLIENT_KIND } from "../wire-clients/wire-client-actor.js";
import { Pinger, Ponger } from "./ping-pong.js";

/**
 * Every actor kind a scenario may name. Worker hosts import this module,
 * so a kind must be constructible from (id, JSON config) alone.
 */
export const DEFAULT_REGISTRY: ActorRegistry = new Map<string, ActorFactory>([
  ["pinger", (_id, config) => new Pinger(config)],
  ["ponger", (_id, config) => new Ponger(config)],
  ["group-coordinator", createGroupCoordinator],
  ["transaction-coordinator", createTransactionCoordinator],
  ["consumer", (id, config) => createConsumerMember(id, config)],
  ["classic-consumer", (id, config) => createClassicConsumerMember(id, config)],
  ["broker", createBroker],
  ["controller", createController],
  ["producer", createProducer],
  [KAFKAJS_CONSUMER_KIND, createKafkaJSConsumer],
  [WIRE_CLIENT_KIND, createWireClient],
]);

/**
 * Kinds whose actors run async third-party client code (promises, timers
 * through their ActorEnvironment): the inline host drains the microtasks
 * after each event they handle (InlineHost.runAsync); other hosts refuse
 * them.
 */
export const ASYNC_ACTOR_KINDS: ReadonlySet<string> = new Set([KAFKAJS_CONSUMER_KIND]);
