import type { ActorId, ActorLogger, Micros, Observation } from "@kcsim/protocol";
import { ActorCell, type CellSink, type LifecycleEvent } from "../../kernel/actor-cell.js";
import { type ActorRegistry, factoryFor } from "../../kernel/actor-registry.js";
import type { ConnectionEvent } from "../../kernel/connection-endpoint.js";
import { MemoryDurableLog } from "../../kernel/durable-log.js";
import type { ArmedTimer, Payload } from "../../kernel/event.js";
import { silentLogger } from "../../kernel/silent-logger.js";
import { TimerHeap } from "../../kernel/timer-heap.js";
import type { ActorReport, Effect, ShardActorInit, ShardSettings } from "./shard-protocol.js";

export interface ShardCellsOptions {
  readonly loggerFor?: (actor: ActorId) => ActorLogger;
  readonly burnCpu?: (micros: Micros) => void;
}

/**
 * What a worker host's shard is, whichever host runs it (lockstep windows,
 * or the real clock): its actors' cells and their armed timers, and the
 * sink of the cells, which records each effect as a tuple to ship to the
 * main thread (which applies them in the total order). The host's shard
 * decides when events run and when its effects leave.
 */
export abstract class ShardCells implements CellSink {
  protected readonly cells = new Map<ActorId, ActorCell>();
  /** The cells' armed timers (cancelled and replaced ones leave at once). */
  protected readonly timers = new TimerHeap();
  /** The effects recorded since the shard last took them. */
  protected effects: Effect[] = [];
  /** The virtual time of the event being handled (the clock of this shard's log lines). */
  now: Micros = 0;
  readonly #settings: ShardSettings;
  readonly #registry: ActorRegistry;
  readonly #options: ShardCellsOptions;

  constructor(settings: ShardSettings, registry: ActorRegistry, options: ShardCellsOptions) {
    this.#settings = settings;
    this.#registry = registry;
    this.#options = options;
  }

  /** Builds the cell of an actor (fresh, or rebuilt from its carry and durable log). */
  protected addCell(actor: ShardActorInit): void {
    if (this.cells.has(actor.id)) throw new Error(`duplicate actor id '${actor.id}'`);
    const settings = this.#settings;
    const cell = new ActorCell(
      {
        id: actor.id,
        kind: actor.kind,
        config: actor.config,
        factory: factoryFor(this.#registry, actor.kind),
        seed: settings.seed,
        rank: actor.rank,
        messages: settings.useCodec ? "frames" : "raw",
        network: settings.network,
        storage: new MemoryDurableLog(actor.log),
        restartPolicy: settings.restartPolicy,
        logger: this.#options.loggerFor?.(actor.id) ?? silentLogger,
        ...(actor.carry !== undefined ? { carry: actor.carry } : {}),
        ...(this.#options.burnCpu !== undefined ? { burnCpu: this.#options.burnCpu } : {}),
      },
      this,
    );
    this.cells.set(actor.id, cell);
  }

  cell(actor: ActorId): ActorCell | undefined {
    return this.cells.get(actor);
  }

  snapshot(): Record<ActorId, ActorReport> {
    const out: Record<ActorId, ActorReport> = {};
    for (const [id, cell] of this.cells) out[id] = { state: cell.state, snapshot: cell.snapshot() };
    return out;
  }

  send(from: ActorId, to: ActorId, seq: number, now: Micros, msgType: string, payload: Payload, bytes: number, conn: number): void {
    this.effects.push(["send", from, to, seq, now, msgType, payload as Uint8Array, bytes, conn]);
  }
  connection(actor: ActorId, now: Micros, event: ConnectionEvent): void {
    this.effects.push(["conn", actor, now, event]);
  }
  observe(actor: ActorId, now: Micros, observation: Observation): void {
    this.effects.push(["obs", actor, now, observation]);
  }
  appended(actor: ActorId, record: Uint8Array): void {
    this.effects.push(["append", actor, record]);
  }
  lifecycle(actor: ActorId, now: Micros, what: LifecycleEvent, detail: string | null): void {
    this.effects.push(["life", actor, now, what, detail]);
  }
  actorError(actor: ActorId, now: Micros, during: string, message: string, stack: string): void {
    this.effects.push(["error", actor, now, during, message, stack]);
  }
  rejected(actor: ActorId, now: Micros, from: ActorId, reason: string, detail: string): void {
    this.effects.push(["reject", actor, now, from, reason, detail]);
  }
  lost(actor: ActorId, now: Micros, from: ActorId, msgType: string, why: string): void {
    this.effects.push(["lost", actor, now, from, msgType, why]);
  }
  scheduleTimer(timer: ArmedTimer): void {
    this.timers.push(timer);
  }
  cancelTimer(timer: ArmedTimer): void {
    this.timers.remove(timer);
  }
}
