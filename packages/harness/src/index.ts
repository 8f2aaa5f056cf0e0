/**
 * @kcsim/harness: hosts (inline, lockstep, realtime), the fault-injecting
 * router, history, scenarios, checkers, metrics, hunting and shrinking, the
 * HTML report and the kcsim CLI.
 *
 * The entry points for using kcsim from your own tests come first (README,
 * "Use it from your tests"): build a scenario in code, run it with checkers
 * and actors of your own, hunt seeds, shrink and replay a failure, write a
 * report. The rest is the machinery they are made of.
 */

// What an actor of your own is made of (a kind in an actor registry: (id, config) => Actor).
export type { Actor, ActorFactory, ActorId, ActorLogger, Context, JsonValue, Message, Micros, Observation } from "@kcsim/protocol";
// Entry points.
export { defineScenario } from "./api/define-scenario.js";
export { type HuntedFailure, type HuntSeedsOptions, huntSeeds } from "./api/hunt-seeds.js";
export { type SimulateOptions, type Simulation, simulate } from "./api/simulate.js";
export { loadRegistry, withDefaultActors } from "./hosts/worker/load-registry.js";
export { writeFailureDir } from "./hunt/failure-dir.js";
export { type FailureReplay, isFailureDir, readHuntRecord, replayFailure } from "./hunt/replay-failure.js";
export { type ScenarioSize, type ShrinkOptions, type ShrinkResult, shrink, sizeOf } from "./hunt/shrink.js";
export type { Swarm } from "./hunt/swarm-draw.js";
export { REPORT_FILE, reportRunDirectory, type WrittenReport, writeRunReport } from "./report/write-report.js";
export { SCENARIO_SCHEMA_PATH, scenarioJsonSchema } from "./scenario/scenario-json-schema.js";

// The machinery.

export { Pinger, type PingerConfig, Ponger } from "./actors/ping-pong.js";
export { DEFAULT_REGISTRY } from "./actors/registry.js";
export { type EventFollower, HistoryPass, type SharedAnalysis } from "./analysis/history-pass.js";
export * from "./checkers/checker.js";
export { CHECKERS, DEFAULT_CHECKERS } from "./checkers/registry.js";
export { EventLog } from "./history/event-log.js";
export * from "./history/history.js";
export * from "./history/history-event.js";
export { InlineHost, type InlineHostOptions } from "./hosts/inline-host.js";
export { mergeByHeads } from "./hosts/lockstep/effect-merge.js";
export { LockstepHost, type LockstepHostOptions } from "./hosts/lockstep/lockstep-host.js";
export type * from "./hosts/lockstep/shard-protocol.js";
export { ShardRuntime } from "./hosts/lockstep/shard-runtime.js";
export { answerWindow, decodeReply, encodeWindow } from "./hosts/lockstep/window-codec.js";
export { RealtimeHost, type RealtimeHostOptions, type RealtimeRunResult } from "./hosts/realtime/realtime-host.js";
export type * from "./hosts/realtime/realtime-protocol.js";
export { RealtimeShard, type ShardClock, type TimerDriver } from "./hosts/realtime/realtime-shard.js";
export * from "./hosts/realtime/recording.js";
export { type ActorReplay, type ReplayReport, replayRecording } from "./hosts/realtime/replay.js";
export { VirtualClock, wallMs } from "./hosts/realtime/virtual-clock.js";
export { HOST_NAMES, type HostOptions, type HostRun, runInHost } from "./hosts/run-host.js";
export { ActorLogs, LOG_LEVELS, type LogLevel, type LogSpec } from "./hosts/worker/actor-logs.js";
export { comlinkEndpoint } from "./hosts/worker/comlink-endpoint.js";
export { type ActorsPerWorker, autoWorkerCount, parseActorsPerWorker, planShards } from "./hosts/worker/shard-plan.js";
export { describeExit, type WorkerExit, WorkerGoneError, WorkerHandle } from "./hosts/worker/worker-handle.js";
export { ActorCell, type CellOptions, type CellSink, type LifecycleEvent, type RestartPolicy } from "./kernel/actor-cell.js";
export { type ActorRegistry, factoryFor } from "./kernel/actor-registry.js";
export type { CellCarry, CellState } from "./kernel/cell-carry.js";
export { type CpuBurner, spinFor } from "./kernel/cpu-burn.js";
export { MemoryDurableLog } from "./kernel/durable-log.js";
export * from "./kernel/event.js";
export type { RunResult } from "./kernel/run-result.js";
export { SimulationCore } from "./kernel/simulation-core.js";
export type * from "./kernel/simulation-spec.js";
export { type RunMetrics, RunMetricsFollower, runMetrics } from "./metrics/run-metrics.js";
export { meanDelayMs, sampleDelay } from "./router/delay.js";
export * from "./router/fault-plan.js";
export { corruptFrame, type Fate, type RouteDecision, Router, type RouterStats } from "./router/router.js";
export { safeLookahead } from "./router/safe-lookahead.js";
export { globToRegExp, NameMatcher } from "./router/selector.js";
export { judgeFinished, RunJudge } from "./run/run-judge.js";
export { checkersWith, type HostName, judge, type RunOptions, type RunSummary, runScenario, runSpec } from "./run/run-scenario.js";
export { loadScenarioFile, ScenarioError, type SpecOverrides, toSimulationSpec, validateScenario } from "./scenario/load-scenario.js";
export { type ScenarioFile, ScenarioSchema } from "./scenario/scenario-schema.js";
export { KcsimServer, type ProcessFault, type ServeOptions, type ServeResult } from "./serve/kcsim-server.js";
export { type ClusterVerdicts, type RunningCluster, type StartClusterOptions, startCluster } from "./serve/start-cluster.js";
