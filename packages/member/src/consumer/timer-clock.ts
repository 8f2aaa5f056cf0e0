import type { Micros } from "@kcsim/protocol";

/**
 * The current time of a Kafka `Timer` (`org.apache.kafka.common.utils.Timer`),
 * which reads the wall clock: `update(now)` keeps the largest reading seen,
 * so a clock stepped back leaves the timer where it was until the wall
 * clock passes that point again, and a clock stepped forward moves it at
 * once. Deadlines set from it (`reset`) start from that time.
 */
export class TimerClock {
  #now: Micros;

  constructor(now: Micros) {
    this.#now = now;
  }

  /** `Timer.update(now)`: the timer's time after reading the clock at `now`. */
  update(now: Micros): Micros {
    if (now > this.#now) this.#now = now;
    return this.#now;
  }
}
