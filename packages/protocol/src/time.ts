/**
 * Virtual time is an integer number of microseconds everywhere in kcsim:
 * `Context.now()`, timer delays, history lines and fault windows. Kafka's
 * configuration values keep their own unit (milliseconds, as named: `...Ms`)
 * and are converted at the point of use with `ms()`.
 */
export type Micros = number;

export const MICROS_PER_MS = 1000;
export const MICROS_PER_SECOND = 1_000_000;

/** Milliseconds to virtual microseconds (rounded to an integer). */
export function ms(milliseconds: number): Micros {
  return Math.round(milliseconds * MICROS_PER_MS);
}

/** Seconds to virtual microseconds (rounded to an integer). */
export function seconds(s: number): Micros {
  return Math.round(s * MICROS_PER_SECOND);
}

/** Virtual microseconds to (fractional) milliseconds, for reporting. */
export function toMs(t: Micros): number {
  return t / MICROS_PER_MS;
}
