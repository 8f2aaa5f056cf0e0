import type { ActorFactory } from "@kcsim/protocol";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import { Pinger, Ponger } from "./ping-pong.js";

/**
 * Every actor kind a scenario may name. Worker hosts import this module,
 * so a kind must be constructible from (id, JSON config) alone.
 */
export const DEFAULT_REGISTRY: ActorRegistry = new Map<string, ActorFactory>([
  ["pinger", (_id, config) => new Pinger(config)],
  ["ponger", () => new Ponger()],
]);
