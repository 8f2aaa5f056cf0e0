import type { Static } from "@sinclair/typebox";
import { Int, Str, simMessage } from "./schema.js";

/**
 * Simulation-internal messages that are not Kafka RPCs: the ping-pong pair
 * used by the host proofs and benchmarks.
 */
export const SimPing = simMessage("SimPing", { seq: Int, payload: Str });
export type SimPing = Static<typeof SimPing>;

export const SimPong = simMessage("SimPong", { seq: Int, payload: Str });
export type SimPong = Static<typeof SimPong>;
