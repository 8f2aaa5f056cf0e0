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
 * One message fault. It applies to a message when the sender matches
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

/** The network every message crosses: a base latency, never below `minLatencyMs` (the lookahead). */
export interface NetworkSpec {
  readonly minLatencyMs: number;
  readonly latency: DelaySpec;
}

export const DEFAULT_NETWORK: NetworkSpec = {
  minLatencyMs: 0.5,
  latency: { dist: "uniform", minMs: 0.5, maxMs: 1.5 },
};

export interface FaultPlan {
  readonly network: NetworkSpec;
  readonly messageFaults: readonly MessageFault[];
  readonly partitions: readonly PartitionFault[];
}
