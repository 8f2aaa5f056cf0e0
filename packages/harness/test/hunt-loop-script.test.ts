import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const loop = (...args: string[]) => spawnSync(process.execPath, ["scripts/hunt-loop.mjs", ...args], { cwd: ROOT, encoding: "utf8" });

describe("scripts/hunt-loop.mjs (a hunt's seeds in one thread, for instruction counts)", () => {
  it("runs the hunt worker's body over the seeds given and says how many failed, as kcsim hunt judges them", () => {
    const out = loop("scenarios/session-timeout.json", "1..4");
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "kcsim-hunt-loop-"));
    const hunt = spawnSync(
      process.execPath,
      [
        join(ROOT, "packages/harness/bundle/cli.js"),
        "hunt",
        "scenarios/session-timeout.json",
        "--seeds",
        "1..4",
        "--keep-going",
        "--json",
        "--out",
        dir,
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    rmSync(dir, { recursive: true, force: true });
    const failing = new Set((JSON.parse(hunt.stdout) as { failures: { seed: number }[] }).failures.map((f) => f.seed));
    expect(out.stdout).toBe(`4 seeds of scenarios/session-timeout.json, ${failing.size} failed\n`);
  });

  it("draws whole systems with --swarm, as kcsim hunt --swarm does, and prints each seed's cost with --costs", () => {
    const out = loop("--costs", "--swarm", "113..114");
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    const lines = out.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe("2 seeds of the swarm, 0 failed");
    const seeds = lines
      .slice(0, -1)
      .map((line) => JSON.parse(line) as { seed: number; cpuMs: number; failed: boolean; parameters: Record<string, unknown> });
    expect(seeds.map((s) => s.seed)).toEqual([113, 114]);
    for (const s of seeds) {
      expect(s.cpuMs).toBeGreaterThan(0);
      expect(s.failed).toBe(false);
    }
    // What the swarm drew from each seed (the same as `kcsim hunt --swarm` reports for a failing seed).
    expect(seeds.map((s) => [s.parameters.protocol, s.parameters.members, s.parameters.partitions, s.parameters.autoCommit])).toEqual([
      ["eager", 11, 43, false],
      ["eager", 2, 10, false],
    ]);
  });

  it("refuses bad input in one line, exit code 2", () => {
    for (const [args, message] of [
      [[], "usage: node scripts/hunt-loop.mjs [--bundle DIR] [--costs] (SCENARIO | --swarm | --swarm-data | --swarm-migration) [SEEDS]"],
      [
        ["--costs", "--sworm"],
        "usage: node scripts/hunt-loop.mjs [--bundle DIR] [--costs] (SCENARIO | --swarm | --swarm-data | --swarm-migration) [SEEDS]",
      ],
      [["scenarios/session-timeout.json", "9..3"], "seeds 9..3: the range ends before it starts"],
      [["scenarios/session-timeout.json", "1..x"], "seeds must be A..B, a single seed, or a comma-separated list of them, got '1..x'"],
      [
        ["scenarios/ping-pong.json", "1..2"],
        "hunt ping-pong: the scenario has no cluster, and a hunt draws its faults between a cluster and its consumers; hunt it with --as-written (its own faults, with each seed)",
      ],
      [
        ["--bundle", "/nonexistent", "scenarios/session-timeout.json"],
        "no hunt worker at /nonexistent/hunt-worker.cjs (run `pnpm build` first)",
      ],
    ] as const) {
      const out = loop(...args);
      expect(out.status).toBe(2);
      expect(out.stderr).toBe(`hunt-loop: ${message}\n`);
    }
    const missing = loop("scenarios/no-such-scenario.json");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^hunt-loop: .*no-such-scenario\.json.*\n$/);
  });
});
