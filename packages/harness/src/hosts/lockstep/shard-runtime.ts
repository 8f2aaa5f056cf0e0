import type { ActorId, Micros, Observation } from "@kcsim/protocol";
import TinyQueue from "tinyqueue";
import { ActorCell, type CellSink, type LifecycleEvent } from "../../kernel/actor-cell.js";
import { type ActorRegistry, factoryFor } from "../../kernel/actor-registry.js";
import { MemoryDurableLog } from "../../kernel/durable-log.js";
import { compareKeys, type EventKey, type Payload, type SimEvent, type TimerEvent } from "../../kernel/event.js";
import { silentLogger } from "../../kernel/silent-logger.js";
import type { Effect, EffectGroup, ShardInit, ShardWindow, ShardWindowDone } from "./shard-protocol.js";

/**
 * The worker half of the lockstep host, kept free of worker_threads so it
 * can be tested in one thread. It owns a shard of cells and their timers,
 * runs a window's events merged with its own timers in key order, and
 * returns each event's effects tagged with the event's key.
 */
export class ShardRuntime implements CellSink {
  readonly #cells = new Map<ActorId, ActorCell>();
  readonly #timers = new TinyQueue<TimerEvent>([], compareKeys);
  #effects: Effect[] = [];

  constructor(init: ShardInit, registry: ActorRegistry) {
    for (const actor of init.actors) {
      const storage = new MemoryDurableLog(actor.log);
      const cell = new ActorCell(
        {
          id: actor.id,
          kind: actor.kind,
          config: actor.config,
          factory: factoryFor(registry, actor.kind),
          seed: init.seed,
          useCodec: init.useCodec,
          storage,
          restartPolicy: init.restartPolicy,
          logger: silentLogger,
        },
        this,
      );
      this.#cells.set(actor.id, cell);
    }
  }

  nextTimerDue(): Micros | null {
    return this.#timers.peek()?.due ?? null;
  }

  runWindow(window: ShardWindow): ShardWindowDone {
    const groups: EffectGroup[] = [];
    const incoming = window.events;
    let i = 0;
    for (;;) {
      const timer = this.#timers.peek();
      const nextIncoming = incoming[i];
      const timerDue = timer !== undefined && timer.due <= window.limit;
      let event: SimEvent;
      if (nextIncoming !== undefined && (!timerDue || compareKeys(nextIncoming, timer) < 0)) {
        event = nextIncoming;
        i++;
      } else if (timerDue) {
        event = this.#timers.pop() as TimerEvent;
      } else {
        break;
      }
      const cell = this.#cells.get(event.to);
      if (cell === undefined) continue;
      this.#effects = [];
      cell.handle(event);
      if (this.#effects.length > 0) groups.push({ key: keyOf(event), effects: this.#effects });
    }
    this.#effects = [];
    return { type: "done", groups, nextTimerDue: this.nextTimerDue() };
  }

  send(from: ActorId, to: ActorId, seq: number, now: Micros, msgType: string, payload: Payload, bytes: number): void {
    this.#effects.push(["send", from, to, seq, now, msgType, payload as Uint8Array, bytes]);
  }
  observe(actor: ActorId, now: Micros, observation: Observation): void {
    this.#effects.push(["obs", actor, now, observation]);
  }
  appended(actor: ActorId, record: Uint8Array): void {
    this.#effects.push(["append", actor, record]);
  }
  lifecycle(actor: ActorId, now: Micros, what: LifecycleEvent, detail: string | null): void {
    this.#effects.push(["life", actor, now, what, detail]);
  }
  actorError(actor: ActorId, now: Micros, during: string, message: string, stack: string): void {
    this.#effects.push(["error", actor, now, during, message, stack]);
  }
  rejected(actor: ActorId, now: Micros, from: ActorId, reason: string, detail: string): void {
    this.#effects.push(["reject", actor, now, from, reason, detail]);
  }
  lost(actor: ActorId, now: Micros, from: ActorId, msgType: string, why: string): void {
    this.#effects.push(["lost", actor, now, from, msgType, why]);
  }
  scheduleTimer(event: TimerEvent): void {
    this.#timers.push(event);
  }
}

function keyOf(event: EventKey): EventKey {
  return { due: event.due, origin: event.origin, seq: event.seq, sub: event.sub };
}
