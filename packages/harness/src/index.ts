/**
 * @kcsim/harness: hosts (inline, lockstep), the fault-injecting router,
 * history, scenarios, checkers, metrics and the kcsim CLI.
 */

export { Pinger, type PingerConfig, Ponger } from "./actors/ping-pong.js";
export { DEFAULT_REGISTRY } from "./actors/registry.js";
export * from "./checkers/checker.js";
export { CHECKERS, DEFAULT_CHECKERS } from "./checkers/registry.js";
export * from "./history/history.js";
export * from "./history/history-event.js";
export { InlineHost, type InlineHostOptions } from "./hosts/inline-host.js";
export { LockstepHost, type LockstepHostOptions } from "./hosts/lockstep/lockstep-host.js";
export type * from "./hosts/lockstep/shard-protocol.js";
export { ShardRuntime } from "./hosts/lockstep/shard-runtime.js";
export { ActorCell, type CellOptions, type CellSink, type LifecycleEvent, type RestartPolicy } from "./kernel/actor-cell.js";
export { type ActorRegistry, factoryFor } from "./kernel/actor-registry.js";
export { MemoryDurableLog } from "./kernel/durable-log.js";
export * from "./kernel/event.js";
export type { RunResult } from "./kernel/run-result.js";
export { SimulationCore } from "./kernel/simulation-core.js";
export type * from "./kernel/simulation-spec.js";
export { type RunMetrics, runMetrics } from "./metrics/run-metrics.js";
export { meanDelayMs, sampleDelay } from "./router/delay.js";
export * from "./router/fault-plan.js";
export { corruptFrame, type Fate, type RouteDecision, Router, type RouterStats } from "./router/router.js";
export { globToRegExp, NameMatcher } from "./router/selector.js";
export { type HostName, judge, type RunOptions, type RunSummary, runScenario, runSpec } from "./run/run-scenario.js";
export { loadScenarioFile, ScenarioError, type SpecOverrides, toSimulationSpec, validateScenario } from "./scenario/load-scenario.js";
export { type ScenarioFile, ScenarioSchema } from "./scenario/scenario-schema.js";
