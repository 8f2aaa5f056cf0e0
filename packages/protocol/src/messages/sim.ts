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
 * The simulated network's connection events (DESIGN: connections are the
 * default network). The kernel consumes SimConnect and SimAccept itself;
 * only SimDisconnect reaches a client actor.
 *
 * SimDisconnect: the client's connection `connection` to the sender is gone
 * and every request in flight on it failed, as Kafka's NetworkClient fails
 * them on a disconnect: the peer's process is not running (it reset the
 * connection or refused it: `reason` is its state), the connection broke
 * (`broken`), the peer closed it (`closed`), or it could not be set up in
 * time (`connect-timeout`). `connection` is "" for the client's ordinary
 * connection to that node and a name (e.g. "coordinator") for a second one.
 * A paused process does not reset: its kernel still holds the connection.
 */
export const SimDisconnect = simMessage("SimDisconnect", { reason: Str, connection: Str });
export type SimDisconnect = Static<typeof SimDisconnect>;

/** A client's kernel opening a connection (TCP's SYN); the server's kernel answers SimAccept, even while its process is paused. */
export const SimConnect = simMessage("SimConnect", { connection: Str });
export type SimConnect = Static<typeof SimConnect>;

/** The server's kernel accepting a connection (TCP's SYN-ACK). */
export const SimAccept = simMessage("SimAccept", { connection: Str });
export type SimAccept = Static<typeof SimAccept>;
