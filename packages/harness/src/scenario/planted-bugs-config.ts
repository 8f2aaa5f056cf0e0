import { isPlantedBugName, PLANTED_BUG_NAMES, PLANTED_BUGS, PLANTED_BUGS_FIELD } from "@kcsim/protocol";
import type { ActorSpec } from "../kernel/simulation-spec.js";

/** The problem with a scenario's `bugs` list ("bugs[i]: ..."), or null when every name is a known planted bug. */
export function unknownPlantedBug(bugs: readonly string[]): string | null {
  const i = bugs.findIndex((name) => !isPlantedBugName(name));
  if (i < 0) return null;
  return `bugs[${i}]: unknown planted bug '${bugs[i]}' (known: ${PLANTED_BUG_NAMES.join(", ")})`;
}

/**
 * Gives every actor of a bug's kind the scenario's bugs of that kind in its
 * config (`plantedBugs`): configs are plain data, so the bugs reach actors
 * the same way in every host, workers included. Actors of other kinds, and
 * every actor when no bug is planted, are left exactly as they were.
 */
export function withPlantedBugs(actors: readonly ActorSpec[], bugs: readonly string[]): ActorSpec[] {
  if (bugs.length === 0) return [...actors];
  return actors.map((actor) => {
    const own = PLANTED_BUGS.filter((bug) => bug.kind === actor.kind && bugs.includes(bug.name)).map((bug) => bug.name);
    const config = actor.config;
    if (own.length === 0 || typeof config !== "object" || config === null || Array.isArray(config)) return actor;
    return { ...actor, config: { ...config, [PLANTED_BUGS_FIELD]: own } };
  });
}
