import type { Micros } from "@kcsim/protocol";
import type { DelaySpec, FaultPlan } from "./fault-plan.js";

/** The smallest delay a distribution can draw, in microseconds, as the router rounds it. */
function floorOf(spec: DelaySpec): Micros {
  switch (spec.dist) {
    case "fixed":
      return Math.round(spec.ms * 1000);
    case "uniform":
      return Math.max(0, Math.round(Math.min(spec.minMs, spec.maxMs) * 1000));
    case "pareto":
      return Math.max(0, Math.round(spec.scaleMs * 1000));
    case "normal":
    case "exponential":
      return 0;
  }
}

/**
 * The lockstep window: nothing a send causes can arrive sooner than this
 * after it. The router never delivers below its lookahead (minLatencyMs),
 * and faults only add time (delay, reorder, bandwidth, the duplicate's
 * extra delay), so the base latency's floor counts too: a fixed 2 ms
 * network lets windows of 2 ms run in parallel where minLatencyMs alone
 * would allow 0.5. A send that breaks its connection causes no delivery
 * but two break notices, due after the break-detection delay (never below
 * the router's lookahead), so that delay's floor bounds the window as well:
 * a 20 ms network with breaks noticed after 2 ms has 2 ms windows.
 */
export function safeLookahead(plan: FaultPlan, routerLookahead: Micros): Micros {
  const network = plan.network;
  const floor =
    network.mode === "connection" ? Math.min(floorOf(network.latency), floorOf(network.breakDetection)) : floorOf(network.latency);
  return Math.max(routerLookahead, floor);
}
