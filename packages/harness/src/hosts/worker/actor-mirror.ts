import { type ActorId, type Micros, streamFor } from "@kcsim/protocol";
import type { LifecycleEvent } from "../../kernel/actor-cell.js";
import type { CellCarry, CellState } from "../../kernel/cell-carry.js";
import { MemoryDurableLog } from "../../kernel/durable-log.js";

/**
 * What the main thread knows of one worker-hosted actor, kept up to date
 * from the actor's effects: its durable log (every "append" effect), its
 * process state (lifecycle effects) and the highest sequence number it
 * used. A crashed actor restarts in a new worker from this log; if its
 * worker died without reporting its exact carry, the mirror makes one up
 * that keeps event keys unique (a fresh random stream, the clock offset
 * as last reported).
 */
export class ActorMirror {
  readonly id: ActorId;
  readonly log = new MemoryDurableLog();
  state: CellState = "unstarted";
  paused = false;
  maxSeq = 0;
  clockOffset: Micros = 0;
  /** The carry last reported by the actor's worker, if any (exact). */
  carry: CellCarry | null = null;
  incarnation = 0;

  constructor(id: ActorId) {
    this.id = id;
  }

  lifecycle(what: LifecycleEvent, detail: string | null): void {
    switch (what) {
      case "start":
      case "restart":
        this.state = "running";
        this.paused = false;
        return;
      case "crash":
        this.state = "crashed";
        this.paused = false;
        return;
      case "stop":
        this.state = "stopped";
        this.paused = false;
        return;
      case "pause":
        this.paused = true;
        return;
      case "resume":
        this.paused = false;
        return;
      case "clock-step":
        this.clockOffset += Number(detail ?? 0);
        return;
      case "command":
        return;
    }
  }

  sent(seq: number): void {
    if (seq > this.maxSeq) this.maxSeq = seq;
  }

  /** The best carry for rebuilding this actor after its worker died. */
  carryAfterDeath(seed: number): CellCarry {
    if (this.carry !== null) return this.carry;
    // Timers used sequence numbers the mirror never saw: leave a wide gap so new keys stay unique.
    return {
      state: this.state,
      seq: this.maxSeq + 1_000_000,
      clockOffset: this.clockOffset,
      rng: streamFor(seed, `${this.id}#${++this.incarnation}`).state(),
      netRng: streamFor(seed, `!net:${this.id}#${this.incarnation}`).state(),
    };
  }
}
