/**
 * The message-fault plan the router applies (DESIGN.md "The router"), as a
 * scenario file states it. Times are milliseconds of virtual time, as users
 * write them; the router converts to microseconds.
 */
export type DelaySpec =
  | { readonly dist: "fixed"; readonly ms: number }
  | { readonly dist: "uniform"; readonly minMs: number; readonly maxMs: number }
  | { readonly dist: "normal"; readonly meanMs: number; readonly stddevMs: number }
  | { readonly dist: "exponential"; readonly meanMs: number }
  | { readonly dist: "pareto"; readonly scaleMs: number; readonly shape: number };

/** Gilbert-Elliott burst loss: a two-state Markov chain per link, advanced once per message. */
export interface GilbertElliott {
  readonly pGoodToBad: number;
  readonly pBadToGood: number;
  readonly lossInGood: number;
  readonly lossInBad: number;
}

export type DropSpec = { readonly probability: number } | { readonly gilbertElliott: GilbertElliott };

/**
 * One message fault. In connection mode, `drop` breaks the connection the
 * message rides (the message and everything after it on that connection is
 * lost, and both ends notice after a drawn delay), `delay` and `bandwidth`
 * hold back the whole stream, `corrupt` damages the frame (the reader
 * closes the connection) and `duplicate` and `reorder` are not allowed.
 * It applies to a message when the sender matches
 * `from`, the receiver matches `to`, the message type matches `types`
 * (each a list of ids or globs with `*`; absent = any) and the send time is
 * inside [startMs, endMs).
 */
export interface MessageFault {
  readonly name: string;
  readonly from?: readonly string[];
  readonly to?: readonly string[];
  readonly types?: readonly string[];
  readonly startMs?: number;
  readonly endMs?: number;
  readonly drop?: DropSpec;
  readonly delay?: DelaySpec;
  readonly duplicate?: { readonly probability: number; readonly delay?: DelaySpec };
  /** With this probability the message is held back by `delay` and may overtake or be overtaken (it leaves FIFO order). */
  readonly reorder?: { readonly probability: number; readonly delay: DelaySpec };
  /** Serialises matching messages on each link at this rate (bytes of the encoded frame). */
  readonly bandwidth?: { readonly bytesPerSecond: number };
  /** Damages the frame in flight: cut it short, or replace it with bytes that are not msgpack. */
  readonly corrupt?: { readonly probability: number; readonly mode: "truncate" | "garbage" };
}

/** A network partition between two sets of actors (ids or globs). */
export interface PartitionFault {
  readonly name: string;
  readonly a: readonly string[];
  readonly b: readonly string[];
  /** "two-way" blocks both directions; "a-to-b" only messages from a to b; "b-to-a" the reverse. */
  readonly direction: "two-way" | "a-to-b" | "b-to-a";
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * How messages travel:
 * - "connection" (the default): every exchange rides a client's connection
 *   to a server, with TCP's and Kafka's semantics (in order, at most once,
 *   one request served at a time). Faults are what TCP shows: a loss breaks
 *   the connection, a delay slows the whole stream, a partition stops it.
 * - "datagram": each message travels on its own and may be dropped,
 *   duplicated, reordered or delayed independently: stress beyond what TCP
 *   allows, never the default.
 */
export type NetworkMode = "connection" | "datagram";

/** The network every message crosses: a base latency, never below `minLatencyMs` (the lookahead). */
export interface NetworkSpec {
  readonly mode: NetworkMode;
  readonly minLatencyMs: number;
  readonly latency: DelaySpec;
  /** How long each end of a broken connection takes to notice the break (connection mode). */
  readonly breakDetection: DelaySpec;
}

export const DEFAULT_NETWORK: NetworkSpec = {
  mode: "connection",
  minLatencyMs: 0.5,
  latency: { dist: "uniform", minMs: 0.5, maxMs: 1.5 },
  breakDetection: { dist: "uniform", minMs: 1, maxMs: 1000 },
};

/** The probabilistic effects of a message fault: what a choice decides. */
export type ChoiceKind = "drop" | "corrupt" | "duplicate" | "reorder";

/**
 * One random fault decision that fired: fault `fault`'s `kind` on the
 * `n`-th message (from 0) routed on link `link` ("sender>receiver").
 */
export interface FaultChoice {
  readonly link: string;
  readonly n: number;
  readonly fault: string;
  readonly kind: ChoiceKind;
}

export interface FaultPlan {
  readonly network: NetworkSpec;
  readonly messageFaults: readonly MessageFault[];
  readonly partitions: readonly PartitionFault[];
  /**
   * Pinned choices (what `kcsim shrink` writes): when present, a fault's
   * random decisions fire exactly on these messages and nowhere else, in
   * place of the seed's draws. Latencies and delay amounts still come from
   * the seed.
   */
  readonly choices?: readonly FaultChoice[];
}
