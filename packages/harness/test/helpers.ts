import { type CommittedPartition, committedPartitions, type OffsetCommitObservation } from "@kcsim/coordinator";
import type { JsonValue, Message } from "@kcsim/protocol";
import {
  type CellSink,
  DEFAULT_NETWORK,
  type FaultPlan,
  type HistoryEvent,
  type PartitionFault,
  type SimulationSpec,
} from "../src/index.js";
import { validateScenario } from "../src/scenario/load-scenario.js";
import type { ScenarioFile } from "../src/scenario/scenario-schema.js";

/** A classic HeartbeatRequest with correlation id `correlationId` (group "g", member "m", generation 1): a small RPC for transport tests. */
export function heartbeatRequest(correlationId: number): Message {
  return {
    type: "HeartbeatRequest",
    correlationId,
    apiVersion: 4,
    clientId: "client",
    groupId: "g",
    generationId: 1,
    memberId: "m",
    groupInstanceId: null,
  };
}

/** A simulation spec for tests, with sensible defaults. */
export function testSpec(overrides: Partial<SimulationSpec> & { actors: SimulationSpec["actors"] }): SimulationSpec {
  return {
    scenario: "test",
    seed: 1,
    durationUs: 1_000_000,
    plan: { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] },
    nemesis: [],
    useCodec: true,
    restartPolicy: { mode: "restart", delayUs: 10_000 },
    ...overrides,
  };
}

export function actor(id: string, kind: string, config: JsonValue = {}, startAtUs = 0) {
  return { id, kind, config, startAtUs };
}

export const noFaults: FaultPlan = { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] };

/** A CellSink that drops every effect and mirrors no durable log (spread it and override what a test watches). */
export function quietSink(): CellSink {
  return {
    send() {},
    connection() {},
    observe() {},
    lifecycle() {},
    actorError() {},
    rejected() {},
    lost() {},
    scheduleTimer() {},
    cancelTimer() {},
  };
}

/** What differs between the shrunk swarm scenarios the findings' tests pin (see swarmConsumerScenario). */
export interface SwarmShape {
  readonly name: string;
  readonly seed: number;
  readonly durationMs: number;
  readonly topicPartitions: number;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly members: number;
  readonly staggerMs: number;
  readonly consumer: Record<string, JsonValue>;
  readonly app: Record<string, JsonValue>;
  readonly partitions: readonly PartitionFault[];
  /** Default 2. */
  readonly recordsPerSecondPerPartition?: number;
  /** Scenario nemesis steps (`atMs`, `actor`, `action`); default none. */
  readonly nemesis?: readonly Record<string, JsonValue>[];
}

/**
 * Swarm seed 184's group, shrunk (stale-commit-retransmitted.test.ts): two KIP-848 members auto-committing every
 * 5 s on 32 partitions; a test adds its name, duration and partitions.
 */
export const SEED_184_GROUP = {
  seed: 184,
  topicPartitions: 32,
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 9000,
  members: 2,
  staggerMs: 247,
  consumer: { "max.poll.interval.ms": 15_000, "enable.auto.commit": true, "group.remote.assignor": "range" },
  app: { processingMsPerRecord: 5, commit: "auto" },
} as const satisfies Omit<SwarmShape, "name" | "durationMs" | "partitions">;

/**
 * A swarm hunt's scenario, shrunk: one KIP-848 group "swarm" of dynamic members on the topic "swarm" (two
 * records per second per partition unless said), with the swarm's coordinator settings, network partitions and
 * nemesis steps only.
 */
export function swarmConsumerScenario(shape: SwarmShape): ScenarioFile {
  return validateScenario(
    {
      name: shape.name,
      durationMs: shape.durationMs,
      cluster: {
        coordinators: 1,
        topics: [{ name: "swarm", partitions: shape.topicPartitions }],
        broker: {
          "group.consumer.min.session.timeout.ms": 10_000,
          "group.consumer.session.timeout.ms": shape.sessionTimeoutMs,
          "group.consumer.min.heartbeat.interval.ms": 1000,
          "group.consumer.heartbeat.interval.ms": shape.heartbeatIntervalMs,
        },
      },
      groups: [
        {
          groupId: "swarm",
          protocol: "consumer",
          members: shape.members,
          static: false,
          subscription: ["swarm"],
          staggerMs: shape.staggerMs,
          consumer: shape.consumer,
          app: shape.app,
          source: { kind: "synthetic", recordsPerSecondPerPartition: shape.recordsPerSecondPerPartition ?? 2 },
        },
      ],
      seed: shape.seed,
      partitions: shape.partitions,
      nemesis: shape.nemesis ?? [],
    },
    shape.name,
  );
}

/** Every partition of every gc.offset-commit in `events` (one observation per request), with its time. */
export function committedPartitionsIn(events: Iterable<HistoryEvent>): (CommittedPartition & { readonly t: number })[] {
  const partitions: (CommittedPartition & { readonly t: number })[] = [];
  for (const event of events) {
    if (event.ev !== "obs" || event.o.type !== "gc.offset-commit") continue;
    for (const partition of committedPartitions(event.o as unknown as OffsetCommitObservation))
      partitions.push({ ...partition, t: event.t });
  }
  return partitions;
}

/** The observations of type `type` in `events` (of `actor` only, if given), in history order, with their times. */
export function observationsIn(
  events: Iterable<HistoryEvent>,
  type: string,
  actor?: string,
): { readonly t: number; readonly actor: string; readonly o: Record<string, unknown> }[] {
  const found: { readonly t: number; readonly actor: string; readonly o: Record<string, unknown> }[] = [];
  for (const event of events)
    if (event.ev === "obs" && event.o.type === type && (actor === undefined || event.actor === actor))
      found.push({ t: event.t, actor: event.actor, o: event.o as unknown as Record<string, unknown> });
  return found;
}
