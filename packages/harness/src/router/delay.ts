import { exponential, type Micros, normal, pareto, type UniformSource } from "@kcsim/protocol";
import type { DelaySpec } from "./fault-plan.js";

type UniformDelay = Extract<DelaySpec, { dist: "uniform" }>;

/** A delay in milliseconds as sampleDelay returns it: integer microseconds, never negative. */
function toMicros(ms: number): Micros {
  return Math.max(0, Math.round(ms * 1000));
}

/** A uniform delay for the draw `u` in [0, 1): what sampleDelay gives for it (the router calls it for every message). */
export function uniformDelay(spec: UniformDelay, u: number): Micros {
  return toMicros(spec.minMs + u * (spec.maxMs - spec.minMs));
}

/** A delay drawn from its distribution, in integer microseconds, never negative. */
export function sampleDelay(spec: DelaySpec, random: UniformSource): Micros {
  let ms: number;
  switch (spec.dist) {
    case "fixed":
      ms = spec.ms;
      break;
    case "uniform":
      return uniformDelay(spec, random());
    case "normal":
      ms = normal(random, spec.meanMs, spec.stddevMs);
      break;
    case "exponential":
      ms = exponential(random, spec.meanMs);
      break;
    case "pareto":
      ms = pareto(random, spec.scaleMs, spec.shape);
      break;
  }
  return toMicros(ms);
}

/** The mean of a delay distribution in milliseconds (Infinity for a Pareto with shape <= 1). */
export function meanDelayMs(spec: DelaySpec): number {
  switch (spec.dist) {
    case "fixed":
      return spec.ms;
    case "uniform":
      return (spec.minMs + spec.maxMs) / 2;
    case "normal":
      return spec.meanMs;
    case "exponential":
      return spec.meanMs;
    case "pareto":
      return spec.shape > 1 ? (spec.shape * spec.scaleMs) / (spec.shape - 1) : Number.POSITIVE_INFINITY;
  }
}
