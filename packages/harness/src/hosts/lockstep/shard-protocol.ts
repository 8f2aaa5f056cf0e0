import type { ActorId, JsonValue, Micros, Observation } from "@kcsim/protocol";
import type { LifecycleEvent, RestartPolicy } from "../../kernel/actor-cell.js";
import type { EventKey, SimEvent } from "../../kernel/event.js";

/**
 * What the main thread and a shard worker say to each other. Every message
 * is one msgpack buffer (transferred, not copied); protocol messages inside
 * stay msgpack frames (bytes) end to end.
 */
export interface ShardActorInit {
  readonly id: ActorId;
  readonly kind: string;
  readonly config: JsonValue;
  /** The actor's durable log so far (encoded records), for a restarted worker. */
  readonly log: readonly Uint8Array[];
}

export interface ShardInit {
  readonly type: "init";
  readonly seed: number;
  readonly useCodec: boolean;
  readonly restartPolicy: RestartPolicy;
  readonly actors: readonly ShardActorInit[];
}

/** Run every event of the window with a due time <= limit, in key order, local timers included. */
export interface ShardWindow {
  readonly type: "window";
  readonly limit: Micros;
  readonly events: readonly SimEvent[];
}

/** One effect of a cell, in the order the actor produced it. */
export type Effect =
  | readonly ["send", ActorId, ActorId, number, Micros, string, Uint8Array | JsonValue, number]
  | readonly ["obs", ActorId, Micros, Observation]
  | readonly ["append", ActorId, Uint8Array]
  | readonly ["life", ActorId, Micros, LifecycleEvent, string | null]
  | readonly ["error", ActorId, Micros, string, string, string]
  | readonly ["reject", ActorId, Micros, ActorId, string, string]
  | readonly ["lost", ActorId, Micros, ActorId, string, string];

/** The effects of one event, tagged with its key for the merge in total order. */
export interface EffectGroup {
  readonly key: EventKey;
  readonly effects: readonly Effect[];
}

export interface ShardWindowDone {
  readonly type: "done";
  readonly groups: readonly EffectGroup[];
  /** The shard's earliest armed timer, or null: the main thread needs it to choose the next window. */
  readonly nextTimerDue: Micros | null;
}

export interface ShardReady {
  readonly type: "ready";
  readonly nextTimerDue: Micros | null;
}

export type ShardReply = ShardWindowDone | ShardReady;
