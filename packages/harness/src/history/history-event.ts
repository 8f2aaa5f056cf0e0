import type { ActorId, Micros, Observation } from "@kcsim/protocol";
import type { Fate } from "../router/router.js";

/**
 * One line of the history: what the simulation decided, at virtual time `t`
 * (microseconds). Only simulation facts go here (never wall-clock times,
 * threads or worker numbers), so the same seed gives the same lines in
 * every host. Key order is fixed by construction, so lines are stable.
 */
export type HistoryEvent = SendRecord | ObservationRecord | LifecycleRecord | ErrorRecord | RejectRecord | LostRecord | ConnectionRecord;

export interface SendRecord {
  readonly t: Micros;
  readonly ev: "send";
  readonly from: ActorId;
  readonly to: ActorId;
  readonly type: string;
  readonly bytes: number;
  readonly fate: Fate;
  readonly at: readonly Micros[];
  readonly fault?: string | undefined;
  readonly corrupt?: "truncate" | "garbage" | undefined;
  readonly reordered?: true | undefined;
  /** Connection mode: the connection it rode (+gen client to server, -gen back; see DeliveryEvent.conn). */
  readonly conn?: number | undefined;
  /** Connection mode: a partition held it back until the partition healed. */
  readonly held?: true | undefined;
}

/**
 * Something that happened to a connection (connection mode). `actor` is the
 * connection's client and `peer` its server; `gen` names it. `what` is one
 * of the client's connection events (connect, ready, close, connect-timeout,
 * reset) or "break": the router broke it at `t` (the fault is the reason),
 * and the client and the server notice at `at`.
 */
export interface ConnectionRecord {
  readonly t: Micros;
  readonly ev: "conn";
  readonly actor: ActorId;
  readonly peer: ActorId;
  readonly gen: number;
  readonly what: string;
  readonly connection: string;
  readonly reason: string | null;
  readonly at?: readonly [Micros, Micros] | undefined;
}

export interface ObservationRecord {
  readonly t: Micros;
  readonly ev: "obs";
  readonly actor: ActorId;
  readonly o: Observation;
}

export interface LifecycleRecord {
  readonly t: Micros;
  readonly ev: "life";
  readonly actor: ActorId;
  readonly what: string;
  readonly detail: string | null;
}

export interface ErrorRecord {
  readonly t: Micros;
  readonly ev: "error";
  readonly actor: ActorId;
  readonly during: string;
  readonly message: string;
  readonly stack: string;
}

export interface RejectRecord {
  readonly t: Micros;
  readonly ev: "reject";
  readonly actor: ActorId;
  readonly from: ActorId;
  readonly reason: string;
  readonly detail: string;
}

export interface LostRecord {
  readonly t: Micros;
  readonly ev: "lost";
  readonly actor: ActorId;
  readonly from: ActorId;
  readonly type: string;
  readonly why: string;
}

/** The first line of a history file. */
export interface HistoryHeader {
  readonly kcsim: "history";
  readonly format: 8;
  readonly seed: number;
  readonly scenario: string;
  readonly versions: { readonly kcsim: string; readonly protocol: string };
}
