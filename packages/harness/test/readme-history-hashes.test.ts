import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadScenarioFile, runScenario } from "../src/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Each `pnpm kcsim run [scenarios/X.json]` in the README's console blocks with the history hash it printed. The
 * tour is real output, and a change that moves a history (a new observation, a history format) must run it again:
 * its hashes once stayed behind a format bump for a whole stop.
 */
function readmeRuns(): { scenario: string; hash: string }[] {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const runs: { scenario: string; hash: string }[] = [];
  for (const block of readme.split("```console").slice(1)) {
    const lines = block.slice(0, block.indexOf("```")).split("\n");
    for (let i = 0; i < lines.length; i++) {
      const command = /^\$ (?:.*&& )?pnpm kcsim run(?: (scenarios\/[\w-]+\.json))?$/.exec(lines[i] ?? "");
      if (command === null) continue;
      const hashLine = lines.slice(i + 1).find((line) => line.startsWith("$ ") || /^ {2}history hash [0-9a-f]{64}$/.test(line));
      if (hashLine === undefined || hashLine.startsWith("$ ")) continue;
      runs.push({ scenario: command[1] ?? "scenarios/ping-pong.json", hash: hashLine.trim().slice("history hash ".length) });
    }
  }
  return runs;
}

describe("the README's CLI tour", () => {
  const runs = readmeRuns();

  it("shows the runs whose hashes it promises", () => {
    expect(runs.map((run) => run.scenario)).toEqual([
      "scenarios/ping-pong.json",
      "scenarios/m10-join.json",
      "scenarios/kafkajs-chaos.json",
    ]);
  });

  for (const { scenario, hash } of runs)
    it(`prints the history hash a run of ${scenario} gives now`, async () => {
      const { summary } = await runScenario(loadScenarioFile(`${ROOT}${scenario}`), { host: "inline", seed: 1 });
      expect(summary.historyHash).toBe(hash);
    }, 120_000);
});
