import type { Static } from "@sinclair/typebox";
import { Int, Str, simMessage } from "./schema.js";

/**
 * Simulation-internal messages that are not Kafka RPCs: the ping-pong pair
 * used by the host proofs and benchmarks, and the transport's connection
 * reset.
 */
export const SimPing = simMessage("SimPing", { seq: Int, payload: Str });
export type SimPing = Static<typeof SimPing>;

export const SimPong = simMessage("SimPong", { seq: Int, payload: Str });
export type SimPong = Static<typeof SimPong>;

/**
 * What a TCP peer sees when it sends to a process that is not running
 * (crashed, stopped, not yet started): the connection is reset. The host
 * answers every message that reaches a dead actor with one of these, from
 * that actor, through the router (so a partition swallows it too). A client
 * fails every request it has in flight to that peer, as Kafka's NetworkClient
 * does on a disconnect. A paused process does not reset: its kernel still
 * holds the connection.
 */
export const SimDisconnect = simMessage("SimDisconnect", { reason: Str });
export type SimDisconnect = Static<typeof SimDisconnect>;
