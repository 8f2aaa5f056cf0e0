import { type JsonValue, pick, randomInt, streamFor, type UniformSource } from "@kcsim/protocol";
import type { NetworkMode } from "../router/fault-plan.js";
import { groupMembers } from "../scenario/expand-groups.js";
import { networkOf, validateScenario } from "../scenario/load-scenario.js";
import { ScenarioError } from "../scenario/scenario-error.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import type { ChaosPlan } from "./chaos-plan.js";
import { drawSwarmSystem, type Swarm, swarmFlag } from "./swarm-draw.js";

/**
 * Draws, per seed, a fault schedule (and for a swarm hunt the whole system
 * too: swarm-draw.ts). Every fault starts after a warm-up and heals by
 * `healAtMs`, leaving the rest of the run for the group to converge, so
 * the checkers (converges, no-loss) can hold when the protocol is right.
 * Draws come from the seed's own stream, so a seed always means the same
 * plan.
 */
const WARMUP_MS = 8_000;

type Draw = UniformSource;

const between = (r: Draw, min: number, max: number) => Math.round(min + r() * (max - min));

interface Cast {
  readonly members: readonly string[];
  readonly coordinators: readonly string[];
  readonly brokers: readonly string[];
}

/** The member, coordinator and broker ids the scenario will have. */
function castOf(scenario: ScenarioFile): Cast {
  const members = (scenario.groups ?? []).flatMap((group) => groupMembers(group).map((member) => member.id));
  const coordinators = Array.from({ length: scenario.cluster?.coordinators ?? 1 }, (_, i) => `coordinator-${i}`);
  const brokers = Array.from({ length: scenario.cluster?.brokers ?? 0 }, (_, i) => `broker-${i}`);
  return { members, coordinators, brokers };
}

const MESSAGE_FAMILIES = [
  ["ConsumerGroupHeartbeat*"],
  ["Heartbeat*", "JoinGroup*", "SyncGroup*"],
  ["OffsetCommit*", "OffsetFetch*"],
  ["FindCoordinator*"],
  ["Fetch*"],
  ["Produce*"],
] as const;

/** Draws the fault schedule of one run over `cast`, healing by healAtMs. */
export interface DrawnFaults {
  readonly faults: NonNullable<ScenarioFile["faults"]>;
  readonly partitions: NonNullable<ScenarioFile["partitions"]>;
  readonly nemesis: NonNullable<ScenarioFile["nemesis"]>;
  /** One line per drawn fault, for the bug report. */
  readonly summary: string[];
}

/**
 * The message faults a network can show: on connections (the default) a
 * loss breaks the connection and a delay slows the whole stream; only
 * datagrams are duplicated or reordered on their own.
 */
const FAULT_KINDS = {
  connection: ["drop", "burst", "delay"],
  datagram: ["drop", "burst", "delay", "duplicate", "reorder"],
} as const;

export function drawFaults(r: Draw, cast: Cast, healAtMs: number, mode: NetworkMode = "connection"): DrawnFaults {
  const summary: string[] = [];
  // A short run gets proportionally shorter warm-up, margins and faults, so every window lies inside [0, healAtMs].
  const warmup = Math.min(WARMUP_MS, Math.round(healAtMs * 0.2));
  const margin = Math.min(5_000, Math.round(healAtMs * 0.2));
  const shortest = Math.min(2_000, Math.round(healAtMs * 0.1));
  const window = () => {
    const start = between(r, warmup, healAtMs - margin);
    return { startMs: start, endMs: between(r, start + shortest, healAtMs) };
  };
  const faults: NonNullable<ScenarioFile["faults"]> = [];
  const nFaults = randomInt(r, 0, 4);
  for (let i = 0; i < nFaults; i++) {
    const { startMs, endMs } = window();
    const types = [...pick(r, MESSAGE_FAMILIES)];
    const toCoordinator = r() < 0.5;
    const scope = toCoordinator ? { to: [...cast.coordinators, ...cast.brokers] } : { from: [...cast.coordinators, ...cast.brokers] };
    const kind = pick<(typeof FAULT_KINDS)[NetworkMode][number]>(r, FAULT_KINDS[mode]);
    const name = `f${i}-${kind}`;
    const base = { name, types, startMs, endMs, ...scope };
    if (kind === "drop") faults.push({ ...base, drop: { probability: Number((0.05 + r() * 0.45).toFixed(2)) } });
    else if (kind === "burst") {
      faults.push({
        ...base,
        drop: { gilbertElliott: { pGoodToBad: 0.05, pBadToGood: Number((0.1 + r() * 0.4).toFixed(2)), lossInGood: 0, lossInBad: 0.9 } },
      });
    } else if (kind === "delay") faults.push({ ...base, delay: { dist: "exponential", meanMs: between(r, 5, 2_000) } });
    else if (kind === "duplicate")
      faults.push({
        ...base,
        duplicate: { probability: Number((0.05 + r() * 0.3).toFixed(2)), delay: { dist: "uniform", minMs: 0, maxMs: 200 } },
      });
    else
      faults.push({
        ...base,
        reorder: { probability: Number((0.05 + r() * 0.3).toFixed(2)), delay: { dist: "uniform", minMs: 5, maxMs: 500 } },
      });
    summary.push(`${name} on ${types.join("/")} ${toCoordinator ? "to" : "from"} the servers, ${startMs}-${endMs} ms`);
  }
  const partitions: NonNullable<ScenarioFile["partitions"]> = [];
  const nPartitions = cast.members.length > 0 ? randomInt(r, 0, 2) : 0;
  for (let i = 0; i < nPartitions; i++) {
    const { startMs, endMs } = window();
    const cut = cast.members.filter(() => r() < 0.3);
    if (cut.length === 0) continue;
    const servers = r() < 0.5 ? [...cast.coordinators] : [...cast.coordinators, ...cast.brokers];
    const direction = pick(r, ["two-way", "a-to-b", "b-to-a"] as const);
    partitions.push({ name: `p${i}`, a: cut, b: servers, direction, startMs, endMs });
    summary.push(`partition p${i}: ${cut.join(",")} cut from ${servers.join(",")} (${direction}), ${startMs}-${endMs} ms`);
  }
  const nemesis: NonNullable<ScenarioFile["nemesis"]> = [];
  const nSteps = randomInt(r, 0, 4);
  for (let i = 0; i < nSteps; i++) {
    const { startMs, endMs } = window();
    const what = pick(r, ["pause", "app-pause", "crash", "coordinator-failover", "broker-crash", "clock-step"] as const);
    if ((what === "pause" || what === "app-pause" || what === "crash" || what === "clock-step") && cast.members.length > 0) {
      const actor = pick(r, cast.members);
      if (what === "pause") nemesis.push({ atMs: startMs, actor, action: "pause" }, { atMs: endMs, actor, action: "resume" });
      if (what === "app-pause") {
        nemesis.push(
          { atMs: startMs, actor, action: "command", command: { command: "pause-app" } },
          { atMs: endMs, actor, action: "command", command: { command: "resume-app" } },
        );
      }
      if (what === "crash") nemesis.push({ atMs: startMs, actor, action: "crash" }, { atMs: endMs, actor, action: "restart" });
      if (what === "clock-step") nemesis.push({ atMs: startMs, actor, action: "clock-step", deltaMs: between(r, -5_000, 5_000) });
      summary.push(`${what} of ${actor} ${what === "clock-step" ? `at ${startMs} ms` : `${startMs}-${endMs} ms`}`);
    } else if (what === "coordinator-failover") {
      const actor = pick(r, cast.coordinators);
      const restartAt = Math.min(healAtMs, startMs + between(r, 500, 10_000));
      nemesis.push({ atMs: startMs, actor, action: "crash" }, { atMs: restartAt, actor, action: "restart" });
      summary.push(`failover of ${actor}: crash at ${startMs} ms, back at ${restartAt} ms`);
    } else if (what === "broker-crash" && cast.brokers.length > 0) {
      const actor = pick(r, cast.brokers);
      nemesis.push({ atMs: startMs, actor, action: "crash" }, { atMs: endMs, actor, action: "restart" });
      summary.push(`crash of ${actor} ${startMs}-${endMs} ms`);
    }
  }
  return { faults, partitions, nemesis, summary };
}

/**
 * The plan of one hunt run: the base scenario (or a swarm-drawn one) with a
 * fault schedule drawn from the seed, replacing the scenario's own faults.
 */
export function drawChaosPlan(seed: number, base: ScenarioFile | Swarm): ChaosPlan {
  // The drawn faults cut consumers off from a cluster's coordinators and brokers, and crash them: a scenario of
  // actors alone (ping-pong) has none of those, so only its own faults can be hunted.
  if (typeof base !== "string" && base.cluster === undefined)
    throw new ScenarioError(
      `hunt ${base.name}: the scenario has no cluster, and a hunt draws its faults between a cluster and its consumers; hunt it with --as-written (its own faults, with each seed)`,
    );
  const r = streamFor(seed, "!hunt").next;
  const drawn = typeof base === "string" ? drawSwarmSystem(r, base) : { scenario: base, parameters: {} as Record<string, JsonValue> };
  const healAtMs = Math.round(drawn.scenario.durationMs * 0.4);
  const { faults, partitions, nemesis, summary } = drawFaults(r, castOf(drawn.scenario), healAtMs, networkOf(drawn.scenario).mode);
  // The plan is written out for replay and shrinking: it must be a valid scenario file itself.
  // Its description says what it is: the base's own describes faults this plan replaces.
  const description =
    typeof base === "string"
      ? `${base === "group" ? "A group" : "A system"} kcsim hunt ${swarmFlag(base)} drew from seed ${seed}, with faults drawn from the same seed, all healed by ${healAtMs} ms.`
      : `${base.name}'s system with faults kcsim hunt drew from seed ${seed} in place of its own, all healed by ${healAtMs} ms.`;
  const scenario = validateScenario({ ...drawn.scenario, description, seed, faults, partitions, nemesis }, `hunt plan of seed ${seed}`);
  return { seed, scenario, parameters: { ...drawn.parameters, healAtMs, faults: summary } };
}
