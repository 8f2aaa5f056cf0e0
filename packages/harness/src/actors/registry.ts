import { createGroupCoordinator, createTransactionCoordinator } from "@kcsim/coordinator";
import { createBroker, createController, createProducer } from "@kcsim/fetch";
import { createClassicConsumerMember, createConsumerMember } from "@kcsim/member";
import type { ActorFactory } from "@kcsim/protocol";
import type { ActorRegistry } from "../kernel/actor-registry.js";
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
]);
