import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import type { MutationCase } from "./mutation-fuzzer.js";
import { fieldPaths, MUTATIONS } from "./scenario-mutations.js";

/** The shipped scenarios, by name. */
export function shippedScenarios(dir: string): { readonly name: string; readonly value: unknown }[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({ name: file.replace(/\.json$/, ""), value: JSON.parse(readFileSync(join(dir, file), "utf8")) as unknown }));
}

/**
 * `count` one-field mutations drawn by fast-check from a seed: every
 * shipped scenario in turn (so each is mutated count/N times), a field of
 * it and a hostile value. The same seed draws the same cases.
 */
export function drawMutationCases(
  scenarios: readonly { readonly name: string; readonly value: unknown }[],
  count: number,
  seed: number,
): MutationCase[] {
  const draws = fc.sample(fc.tuple(fc.nat(), fc.constantFrom(...MUTATIONS)), { numRuns: count, seed });
  return draws.map(([field, mutation], i) => {
    const scenario = scenarios[i % scenarios.length] as { readonly name: string; readonly value: unknown };
    const paths = fieldPaths(scenario.value);
    return { scenarioName: scenario.name, scenario: scenario.value, path: paths[field % paths.length] ?? [], mutation };
  });
}
