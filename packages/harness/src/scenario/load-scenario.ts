import { readFileSync } from "node:fs";
import { type ControlCommand, deepestError, type JsonValue, ms, SchemaCheck } from "@kcsim/protocol";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { CHECKERS } from "../checkers/registry.js";
import { KafkaJSAppSchema } from "../kafkajs/kafkajs-consumer-config.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { ControlAction } from "../kernel/event.js";
import type { ActorSpec, SimulationSpec } from "../kernel/simulation-spec.js";
import { DEFAULT_NETWORK, type FaultPlan, type NetworkSpec } from "../router/fault-plan.js";
import { globToRegExp } from "../router/selector.js";
import { CLIENT_ACTOR_PREFIX } from "../serve/client-identity.js";
import { actorConfigProblem } from "./actor-config-check.js";
import { expandGroups, type GroupProtocol, groupMemberNumbering, groupMembers, groupNemesis } from "./expand-groups.js";
import { MAX_ACTORS, MAX_GROUP_COST, MAX_MEMBERS, MAX_PARTITIONS, MAX_PRODUCERS } from "./limits.js";
import { unknownPlantedBug, withPlantedBugs } from "./planted-bugs-config.js";
import { ScenarioError } from "./scenario-error.js";
import { type ScenarioFile, ScenarioSchema } from "./scenario-schema.js";

export { ScenarioError } from "./scenario-error.js";

const check = new SchemaCheck(ScenarioSchema);
const checkKafkaJSApp = new SchemaCheck(KafkaJSAppSchema);

/** "/faults/0/drop/probability" -> "faults[0].drop.probability". */
function readablePath(pointer: string): string {
  const parts = pointer.split("/").slice(1);
  let out = "";
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === "" ? part : `.${part}`;
  return out || "(top level)";
}

/** Parses JSON, reporting a syntax error with its line and column, on one line. */
export function parseJsonText(text: string, source: string, errorOf: (message: string) => Error = (m) => new ScenarioError(m)): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8 appends an excerpt of the text on a second line: keep the first.
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
    const position = /position (\d+)/.exec(message);
    if (position?.[1] !== undefined) {
      const before = text.slice(0, Number(position[1]));
      const line = before.split("\n").length;
      const column = before.length - before.lastIndexOf("\n");
      throw errorOf(`${source}:${line}:${column}: invalid JSON (${message.replace(/ in JSON at position \d+.*$/, "")})`);
    }
    throw errorOf(`${source}: invalid JSON (${message.replace(/ \(line \d+ column \d+\)$/, "")})`);
  }
}

/** Validates a parsed scenario against the schema and its cross-references. */
/**
 * Validates a parsed scenario against the schema and its cross-references.
 * `registry` is the actor registry the run will build its actors from:
 * every actor kind must be in it, and every actor is built once from its
 * config to check it. Null while the registry is not known yet (a scenario
 * defined in code before `simulate` is given its actors): then kinds that
 * are not kcsim's own are left for the run to check.
 */
export function validateScenario(value: unknown, source: string, registry: ActorRegistry | null = DEFAULT_REGISTRY): ScenarioFile {
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
  validateSizes(scenario, source);
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
  if (ids.size > MAX_ACTORS)
    throw new ScenarioError(`${source}: ${ids.size} actors: more than the limit of ${MAX_ACTORS} actors a run can hold`);
  if (registry !== null) {
    (scenario.actors ?? []).forEach((actor, i) => {
      if (!registry.has(actor.kind))
        throw new ScenarioError(
          `${source}: actors[${i}].kind: unknown actor kind '${actor.kind}' (known: ${[...registry.keys()].join(", ")})`,
        );
    });
  }
  (scenario.checkers ?? []).forEach((name, i) => {
    if (!CHECKERS.has(name))
      throw new ScenarioError(`${source}: checkers[${i}]: unknown checker '${name}' (known: ${[...CHECKERS.keys()].join(", ")})`);
  });
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
  // Without the run's registry yet, only the actors of kcsim's own kinds are built (the others are checked by the run).
  const actors = toSimulationSpec(scenario).actors.filter((actor) => registry !== null || DEFAULT_REGISTRY.has(actor.kind));
  const problem = actorConfigProblem(scenario, actors, registry ?? DEFAULT_REGISTRY);
  if (problem !== null) throw new ScenarioError(`${source}: ${problem.where}: ${problem.message}`);
  return scenario;
}

/**
 * Faults must mean something in the scenario's network: duplicate and
 * reorder exist only for datagrams (a connection delivers each byte once,
 * in order), and a fault or partition that names an actor the run does not
 * have, or a glob that matches none of its actors, is a mistake, not a fault
 * that never fires (a real client's `client:` name joins the run later).
 */
function validateFaultScopes(scenario: ScenarioFile, ids: ReadonlySet<string>, source: string): void {
  const mode = networkOf(scenario).mode;
  // "client:<client.id>" names a real client of kcsim serve, which joins the run when it connects.
  // A glob that matches none of the run's actors is as much a mistake as an unknown id (a typo such as `membr-*`).
  const unknownActor = (names: readonly string[] | undefined): string | undefined =>
    names?.find((name) => {
      if (name.startsWith(CLIENT_ACTOR_PREFIX)) return false;
      if (!name.includes("*")) return !ids.has(name);
      const glob = globToRegExp(name);
      return ![...ids].some((id) => glob.test(id));
    });
  const noActor = (name: string): string => (name.includes("*") ? `'${name}' matches no actor` : `no actor '${name}'`);
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
      if (missing !== undefined) throw new ScenarioError(`${source}: faults[${i}].${key}: ${noActor(missing)}`);
    }
  });
  const faults = new Map((scenario.faults ?? []).map((fault) => [fault.name, fault]));
  (scenario.choices ?? []).forEach((choice, i) => {
    const fault = faults.get(choice.fault);
    if (fault === undefined) throw new ScenarioError(`${source}: choices[${i}].fault: no fault '${choice.fault}'`);
    if (fault[choice.kind] === undefined)
      throw new ScenarioError(`${source}: choices[${i}].kind: fault '${choice.fault}' has no ${choice.kind}`);
  });
  (scenario.partitions ?? []).forEach((partition, i) => {
    for (const key of ["a", "b"] as const) {
      const missing = unknownActor(partition[key]);
      if (missing !== undefined) throw new ScenarioError(`${source}: partitions[${i}].${key}: ${noActor(missing)}`);
    }
  });
}

/** The bounds of scenario/limits.ts that span several fields, and member numbers that must exist. */
function validateSizes(scenario: ScenarioFile, source: string): void {
  const topics = scenario.cluster?.topics ?? [];
  const names = new Set<string>();
  topics.forEach((topic, i) => {
    if (topic.name === "." || topic.name === "..")
      throw new ScenarioError(`${source}: cluster.topics[${i}].name: '${topic.name}' is not a legal topic name`);
    if (names.has(topic.name)) throw new ScenarioError(`${source}: cluster.topics[${i}].name: a second topic named '${topic.name}'`);
    names.add(topic.name);
  });
  const partitions = topics.reduce((n, t) => n + t.partitions, 0);
  if (partitions > MAX_PARTITIONS)
    throw new ScenarioError(`${source}: cluster.topics: ${partitions} partitions in all: more than the limit of ${MAX_PARTITIONS}`);
  const partitionsOf = new Map(topics.map((t) => [t.name, t.partitions]));
  let members = 0;
  (scenario.groups ?? []).forEach((group, i) => {
    const count = groupMembers(group).length;
    const numbered = groupMemberNumbering(group).length;
    const left = new Set(group.withoutMembers ?? []);
    (group.withoutMembers ?? []).forEach((n, k) => {
      if (n > numbered)
        throw new ScenarioError(
          `${source}: groups[${i}].withoutMembers[${k}]: member ${n} does not exist (the group numbers ${numbered} members)`,
        );
    });
    if (count === 0) throw new ScenarioError(`${source}: groups[${i}].withoutMembers: leaves out every member of the group`);
    members += count + (group.replacements?.length ?? 0);
    (group.replacements ?? []).forEach((r, k) => {
      if (r.member > group.members)
        throw new ScenarioError(
          `${source}: groups[${i}].replacements[${k}].member: member ${r.member} does not exist (the group starts ${group.members} members)`,
        );
      if (left.has(r.member))
        throw new ScenarioError(`${source}: groups[${i}].replacements[${k}].member: member ${r.member} is left out (withoutMembers)`);
    });
    (group.overrides ?? []).forEach((o, k) => {
      if (o.member > numbered)
        throw new ScenarioError(
          `${source}: groups[${i}].overrides[${k}].member: member ${o.member} does not exist (the group has ${numbered} members)`,
        );
    });
    const subscribed = new Set(group.subscription);
    const cost = count * [...subscribed].reduce((n, topic) => n + (partitionsOf.get(topic) ?? 0), 0);
    if (cost > MAX_GROUP_COST)
      throw new ScenarioError(
        `${source}: groups[${i}]: ${count} members on ${cost / count} partitions (${cost} member-partitions): more than the limit of ${MAX_GROUP_COST} a run can hold`,
      );
  });
  if (members > MAX_MEMBERS) throw new ScenarioError(`${source}: groups: ${members} members in all: more than the limit of ${MAX_MEMBERS}`);
  const producers = (scenario.producers ?? []).reduce((n, p) => n + (p.count ?? 1), 0);
  if (producers > MAX_PRODUCERS)
    throw new ScenarioError(`${source}: producers: ${producers} producers in all: more than the limit of ${MAX_PRODUCERS}`);
}

/** A KafkaJS group: a classic eager group of real KafkaJS consumers over the brokers, with KafkaJS's own options. */
function validateKafkaJSGroups(scenario: ScenarioFile, source: string): void {
  (scenario.groups ?? []).forEach((group, i) => {
    const where = `${source}: groups[${i}]`;
    if (group.client !== "kafkajs") {
      if (group.kafkajs !== undefined) throw new ScenarioError(`${where}.kafkajs: KafkaJS's options need "client": "kafkajs"`);
      return;
    }
    if ((scenario.cluster?.brokers ?? 0) === 0)
      throw new ScenarioError(`${where}.client: KafkaJS consumers reach the brokers: needs cluster.brokers > 0`);
    const protocol = group.protocol ?? scenario.protocol;
    if (protocol !== undefined && protocol !== "eager")
      throw new ScenarioError(`${where}.protocol: KafkaJS 2.2.4 runs the classic eager protocol only, got '${protocol}'`);
    if (group.consumer !== undefined)
      throw new ScenarioError(`${where}.consumer: a KafkaJS group takes KafkaJS's options, by KafkaJS's names, in "kafkajs"`);
    for (const key of ["static", "replacements", "overrides", "source", "joins"] as const) {
      if (group[key] !== undefined) throw new ScenarioError(`${where}.${key}: not supported for KafkaJS groups`);
    }
    const app = group.app ?? {};
    if (!checkKafkaJSApp.Check(app)) {
      const error = deepestError(checkKafkaJSApp.Errors(app));
      throw new ScenarioError(
        `${where}.app${readablePath(error?.path ?? "")
          .replace(/^\(top level\)$/, "")
          .replace(/^(?=\w)/, ".")}: ${error?.message ?? "not valid"} (a KafkaJS group's app: handler, processingMsPerRecord)`,
      );
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

export function loadScenarioFile(path: string, registry: ActorRegistry = DEFAULT_REGISTRY): ScenarioFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ScenarioError(`${path}: cannot read scenario file (${code === "ENOENT" ? "no such file" : (code ?? String(error))})`);
  }
  return validateScenario(parseJsonText(text, path), path, registry);
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
    ...(scenario.choices !== undefined ? { choices: scenario.choices } : {}),
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
