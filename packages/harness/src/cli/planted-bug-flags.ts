import { isPlantedBugName, PLANTED_BUG_NAMES, PLANTED_BUGS, type PlantedBugName } from "@kcsim/protocol";
import { UsageError } from "./usage-error.js";

/** `--bug NAME`: a known planted bug, or null when the flag is absent; anything else is a one-line usage error. */
export function plantedBugFlag(command: string, value: string | undefined): PlantedBugName | null {
  if (value === undefined) return null;
  if (!isPlantedBugName(value))
    throw new UsageError(`${command}: --bug: unknown planted bug '${value}' (known: ${PLANTED_BUG_NAMES.join(", ")})`);
  return value;
}

/** `hunt --list-bugs`: one line per planted bug, the name first, then what it does and the checker that catches it. */
export function plantedBugList(): string {
  const width = Math.max(...PLANTED_BUG_NAMES.map((name) => name.length));
  return PLANTED_BUGS.map(
    (bug) =>
      `${bug.name.padEnd(width)}  ${bug.description}; caught by ${bug.checker} ` +
      `(hunt scenarios/${bug.scenario}.json${bug.asWritten ? " --as-written" : ""})\n`,
  ).join("");
}
