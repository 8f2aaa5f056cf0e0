import type { Micros } from "@kcsim/protocol";

interface Step {
  readonly t: Micros;
  readonly index: number;
  /** The offset from virtual time once this step is applied. */
  readonly offset: Micros;
}

/**
 * One actor's own clock, as its `ctx.now()` reads it: virtual time plus
 * the sum of the clock steps applied to it so far (the `life` events
 * `clock-step`, whose detail is the delta in microseconds). The offset
 * outlives a crash: a restarted process keeps its host's clock. Steps are
 * added in history order; a step and an event at the same instant are
 * ordered by their history index. It also keeps the clock's high-water
 * mark, the most it ever read: a Kafka `Timer` reading the clock never
 * goes below the largest reading it saw.
 */
export class MemberClock {
  readonly #steps: Step[] = [];
  #offset: Micros = 0;
  #forwardUs: Micros = 0;
  /** The most the clock read before its last backward step. */
  #peak: Micros = Number.NEGATIVE_INFINITY;

  step(t: Micros, index: number, deltaUs: Micros): void {
    this.#peak = Math.max(this.#peak, t + this.#offset);
    this.#offset += deltaUs;
    if (deltaUs > 0) this.#forwardUs += deltaUs;
    this.#steps.push({ t, index, offset: this.#offset });
  }

  /** Whether the clock was ever stepped. */
  get stepped(): boolean {
    return this.#steps.length > 0;
  }

  /** The offset now, while the history is read in order. */
  get current(): Micros {
    return this.#offset;
  }

  /** The most the clock has read up to `t`, while the history is read in order (`t` at or after the last step). */
  highWaterAt(t: Micros): Micros {
    return Math.max(this.#peak, t + this.#offset);
  }

  /** The sum of the forward steps: no stretch of virtual time can gain more than this on the own clock. */
  get forwardUs(): Micros {
    return this.#forwardUs;
  }

  /** The offset in force for an event at (t, index). */
  offsetAt(t: Micros, index: number): Micros {
    let offset = 0;
    for (const step of this.#steps) {
      if (step.t > t || (step.t === t && step.index > index)) break;
      offset = step.offset;
    }
    return offset;
  }

  /** The smallest offset in force at any moment of [from, to] (both ends included). */
  minOffsetBetween(from: Micros, to: Micros): Micros {
    let min = this.offsetAt(from, -1);
    for (const step of this.#steps) {
      if (step.t > to) break;
      if (step.t >= from) min = Math.min(min, step.offset);
    }
    return min;
  }
}
