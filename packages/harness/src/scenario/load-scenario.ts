import { readFileSync } from "node:fs";
import { type ControlCommand, deepestError, type JsonValue, ms } from "@kcsim/protocol";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { KafkaJSAppSchema, KafkaJSConsumerOptionsSchema } from "../kafkajs/kafkajs-consumer-config.js";
import type { ControlAction } from "../kernel/event.js";
import type { ActorSpec, SimulationSpec } from "../kernel/simulation-spec.js";
import { DEFAULT_NETWORK, type FaultPlan, type NetworkSpec } from "../router/fault-plan.js";
import { CLIENT_ACTOR_PREFIX } from "../serve/client-identity.js";
import { expandGroups, type GroupProtocol, groupNemesis } from "./expand-groups.js";
import { unknownPlantedBug, withPlantedBugs } from "./planted-bugs-config.js";
import { type ScenarioFile, ScenarioSchema } from "./scenario-schema.js";

/** A scenario that cannot be run, with one line saying what is wrong and where. */
export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
}

const check = TypeCompiler.Compile(ScenarioSchema);
const checkKafkaJSOptions = TypeCompiler.Compile(KafkaJSConsumerOptionsSchema);
const checkKafkaJSApp = TypeCompiler.Compile(KafkaJSAppSchema);

/** "/faults/0/drop/probability" -> "faults[0].drop.probability". */
function readablePath(pointer: string): string {
  const parts = pointer.split("/").slice(1);
  let out = "";
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === "" ? part : `.${part}`;
  return out || "(top level)";
}

/** Parses JSON, reporting a syntax error with its line and column. */
function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    if (position?.[1] !== undefined) {
      const before = text.slice(0, Number(position[1]));
      const line = before.split("\n").length;
      const column = before.length - before.lastIndexOf("\n");
      throw new ScenarioError(`${source}:${line}:${column}: invalid JSON (${message.replace(/ in JSON at position \d+.*$/, "")})`);
    }
    throw new ScenarioError(`${source}: invalid JSON (${message})`);
  }
}

/** Validates a parsed scenario against the schema and its cross-references. */
export function validateScenario(value: unknown, source: string): ScenarioFile {
  if (!check.Check(value)) {
    const error = deepestError(check.Errors(value));
    throw new ScenarioError(`${source}: ${readablePath(error?.path ?? "")}: ${error?.message ?? "does not match the scenario format"}`);
  }
  const scenario = value;
  const unknownBug = unknownPlantedBug(scenario.bugs ?? []);
  if (unknownBug !== null) throw new ScenarioError(`${source}: ${unknownBug}`);
  if (scenario.groups !== undefined && scenario.cluster === undefined)
    throw new ScenarioError(`${source}: groups: a scenario with groups needs a cluster`);
  if (scenario.producers !== undefined && (scenario.cluster?.brokers ?? 0) === 0) {
    throw new ScenarioError(`${source}: producers: a scenario with producers needs cluster.brokers > 0`);
  }
  (scenario.cluster?.topics ?? []).forEach((topic, i) => {
    const brokers = scenario.cluster?.brokers ?? 0;
    if (topic.replicationFactor !== undefined && topic.replicationFactor > brokers) {
      throw new ScenarioError(
        `${source}: cluster.topics[${i}].replicationFactor: ${topic.replicationFactor} exceeds the ${brokers} brokers`,
      );
    }
  });
  (scenario.groups ?? []).forEach((group, i) => {
    if (group.source?.kind === "fetch" && (scenario.cluster?.brokers ?? 0) === 0) {
      throw new ScenarioError(`${source}: groups[${i}].source: kind "fetch" needs cluster.brokers > 0`);
    }
  });
  validateTransactions(scenario, source);
  validateKafkaJSGroups(scenario, source);
  const topics = new Set((scenario.cluster?.topics ?? []).map((t) => t.name));
  (scenario.groups ?? []).forEach((group, i) => {
    const missing = group.subscription.find((topic) => !topics.has(topic));
    if (missing !== undefined) throw new ScenarioError(`${source}: groups[${i}].subscription: no topic '${missing}' in the cluster`);
  });
  const ids = new Set<string>();
  for (const actor of expandGroups(scenario)) {
    if (ids.has(actor.id))
      throw new ScenarioError(`${source}: groups: two members are both named '${actor.id}' (use distinct idPrefix values)`);
    ids.add(actor.id);
  }
  (scenario.actors ?? []).forEach((actor, i) => {
    if (ids.has(actor.id)) throw new ScenarioError(`${source}: actors[${i}].id: duplicate actor id '${actor.id}'`);
    ids.add(actor.id);
  });
  if (ids.size === 0) throw new ScenarioError(`${source}: the scenario has no actors (give actors, or a cluster and groups)`);
  (scenario.nemesis ?? []).forEach((step, i) => {
    if (!ids.has(step.actor)) throw new ScenarioError(`${source}: nemesis[${i}].actor: no actor '${step.actor}'`);
    if (step.action === "command" && step.command === undefined)
      throw new ScenarioError(`${source}: nemesis[${i}].command: required for action 'command'`);
    if (step.action === "clock-step" && step.deltaMs === undefined)
      throw new ScenarioError(`${source}: nemesis[${i}].deltaMs: required for action 'clock-step'`);
  });
  validateFaultScopes(scenario, ids, source);
  for (const [list, name] of [
    [scenario.faults ?? [], "faults"],
    [scenario.partitions ?? [], "partitions"],
  ] as const) {
    list.forEach((fault, i) => {
      if (fault.startMs !== undefined && fault.endMs !== undefined && fault.endMs < fault.startMs) {
        throw new ScenarioError(`${source}: ${name}[${i}].endMs: ends (${fault.endMs}) before it starts (${fault.startMs})`);
      }
    });
  }
  return scenario;
}

/**
 * Faults must mean something in the scenario's network: duplicate and
 * reorder exist only for datagrams (a connection delivers each byte once,
 * in order), and a fault or partition that names an actor (not a glob, not
 * a real client's `client:` name) the run does not have is a mistake, not a
 * fault that never fires.
 */
function validateFaultScopes(scenario: ScenarioFile, ids: ReadonlySet<string>, source: string): void {
  const mode = networkOf(scenario).mode;
  // "client:<client.id>" names a real client of kcsim serve, which joins the run when it connects.
  const unknownActor = (names: readonly string[] | undefined): string | undefined =>
    names?.find((name) => !name.includes("*") && !name.startsWith(CLIENT_ACTOR_PREFIX) && !ids.has(name));
  (scenario.faults ?? []).forEach((fault, i) => {
    if (mode === "connection") {
      for (const key of ["duplicate", "reorder"] as const) {
        if (fault[key] !== undefined)
          throw new ScenarioError(
            `${source}: faults[${i}].${key}: needs "network": "datagram" (on connections, the default, each byte arrives once and in order)`,
          );
      }
    }
    for (const key of ["from", "to"] as const) {
      const missing = unknownActor(fault[key]);
      if (missing !== undefined) throw new ScenarioError(`${source}: faults[${i}].${key}: no actor '${missing}'`);
    }
  });
  (scenario.partitions ?? []).forEach((partition, i) => {
    for (const key of ["a", "b"] as const) {
      const missing = unknownActor(partition[key]);
      if (missing !== undefined) throw new ScenarioError(`${source}: partitions[${i}].${key}: no actor '${missing}'`);
    }
  });
}

/** A KafkaJS group: a classic eager group of real KafkaJS consumers over the brokers, with KafkaJS's own options. */
function validateKafkaJSGroups(scenario: ScenarioFile, source: string): void {
  (scenario.groups ?? []).forEach((group, i) => {
    if (group.client !== "kafkajs") return;
    const where = `${source}: groups[${i}]`;
    if ((scenario.cluster?.brokers ?? 0) === 0)
      throw new ScenarioError(`${where}.client: KafkaJS consumers reach the brokers: needs cluster.brokers > 0`);
    const protocol = group.protocol ?? scenario.protocol;
    if (protocol !== undefined && protocol !== "eager")
      throw new ScenarioError(`${where}.protocol: KafkaJS 2.2.4 runs the classic eager protocol only, got '${protocol}'`);
    for (const key of ["static", "replacements", "overrides", "source", "joins"] as const) {
      if (group[key] !== undefined) throw new ScenarioError(`${where}.${key}: not supported for KafkaJS groups`);
    }
    for (const [key, compiled] of [
      ["consumer", checkKafkaJSOptions],
      ["app", checkKafkaJSApp],
    ] as const) {
      const value = group[key] ?? {};
      if (!compiled.Check(value)) {
        const error = deepestError(compiled.Errors(value));
        throw new ScenarioError(
          `${where}.${key}${readablePath(error?.path ?? "")
            .replace(/^\(top level\)$/, "")
            .replace(/^(?=\w)/, ".")}: ${error?.message ?? "not valid"} (KafkaJS's consumer options)`,
        );
      }
    }
  });
}

/** What transactions need: brokers under the transaction coordinators, coordinators for transactional producers and outputs. */
function validateTransactions(scenario: ScenarioFile, source: string): void {
  const cluster = scenario.cluster;
  const coordinators = cluster?.transactionCoordinators ?? 0;
  if (coordinators > 0 && (cluster?.brokers ?? 0) === 0) {
    throw new ScenarioError(`${source}: cluster.transactionCoordinators: transaction coordinators need cluster.brokers > 0`);
  }
  (scenario.producers ?? []).forEach((producer, i) => {
    if (producer.transaction !== undefined && coordinators === 0) {
      throw new ScenarioError(`${source}: producers[${i}].transaction: transactional producers need cluster.transactionCoordinators > 0`);
    }
  });
  const topics = new Set((cluster?.topics ?? []).map((t) => t.name));
  (scenario.groups ?? []).forEach((group, i) => {
    const output = group.app?.output;
    if (group.app?.mode !== "consume-process-produce" || typeof output !== "object" || output === null) return;
    const { topic, transactional } = output as { topic?: unknown; transactional?: unknown };
    if (typeof topic === "string" && !topics.has(topic))
      throw new ScenarioError(`${source}: groups[${i}].app.output.topic: no topic '${topic}' in the cluster`);
    if (group.source?.kind !== "fetch") {
      throw new ScenarioError(`${source}: groups[${i}].source: a consume-process-produce group reads through the brokers (kind "fetch")`);
    }
    if (transactional === true && coordinators === 0) {
      throw new ScenarioError(`${source}: groups[${i}].app.output.transactional: needs cluster.transactionCoordinators > 0`);
    }
  });
}

export function loadScenarioFile(path: string): ScenarioFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ScenarioError(`${path}: cannot read scenario file (${code === "ENOENT" ? "no such file" : (code ?? String(error))})`);
  }
  return validateScenario(parseJson(text, path), path);
}

function controlOf(step: NonNullable<ScenarioFile["nemesis"]>[number]): ControlAction {
  switch (step.action) {
    case "clock-step":
      return { action: "clock-step", deltaUs: ms(step.deltaMs ?? 0) };
    case "command":
      return { action: "command", command: step.command as ControlCommand };
    default:
      return { action: step.action };
  }
}

/** The scenario's network, its defaults filled in. */
export function networkOf(scenario: ScenarioFile): NetworkSpec {
  const network = scenario.network;
  if (network === undefined) return DEFAULT_NETWORK;
  if (typeof network === "string") return { ...DEFAULT_NETWORK, mode: network };
  return {
    mode: network.mode ?? DEFAULT_NETWORK.mode,
    minLatencyMs: network.minLatencyMs ?? DEFAULT_NETWORK.minLatencyMs,
    latency: network.latency ?? DEFAULT_NETWORK.latency,
    breakDetection: network.breakDetection ?? DEFAULT_NETWORK.breakDetection,
  };
}

export interface SpecOverrides {
  readonly seed?: number;
  readonly useCodec?: boolean;
  /** Run every group under this protocol instead of the scenario's (kcsim compare, --protocol). */
  readonly protocol?: GroupProtocol;
}

/** Resolves a validated scenario into the host-independent SimulationSpec. */
export function toSimulationSpec(scenario: ScenarioFile, overrides: SpecOverrides = {}): SimulationSpec {
  if (overrides.protocol !== undefined && overrides.protocol !== "eager" && (scenario.groups ?? []).some((g) => g.client === "kafkajs"))
    throw new ScenarioError(
      `${scenario.name}: cannot run under the ${overrides.protocol} protocol: its KafkaJS groups run the classic eager protocol only`,
    );
  const plan: FaultPlan = {
    network: networkOf(scenario),
    messageFaults: scenario.faults ?? [],
    partitions: scenario.partitions ?? [],
  };
  const policy = scenario.restartPolicy ?? { mode: "restart", delayMs: 1000 };
  return {
    scenario: scenario.name,
    seed: overrides.seed ?? scenario.seed ?? 1,
    durationUs: ms(scenario.durationMs),
    actors: withPlantedBugs(
      [
        ...expandGroups(scenario, overrides.protocol ?? scenario.protocol),
        ...(scenario.actors ?? []).map(
          (actor): ActorSpec => ({
            id: actor.id,
            kind: actor.kind,
            config: (actor.config ?? {}) as JsonValue,
            startAtUs: ms(actor.startAtMs ?? 0),
          }),
        ),
      ],
      scenario.bugs ?? [],
    ),
    plan,
    nemesis: [
      ...(scenario.nemesis ?? []).map((step) => ({ atUs: ms(step.atMs), actor: step.actor, control: controlOf(step) })),
      ...groupNemesis(scenario).map((step) => ({
        atUs: ms(step.atMs),
        actor: step.actor,
        control: { action: "command", command: { command: "close" } } as const,
      })),
    ],
    useCodec: overrides.useCodec ?? scenario.codec ?? true,
    restartPolicy: policy.mode === "restart" ? { mode: "restart", delayUs: ms(policy.delayMs) } : policy,
  };
}
