import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatSummary } from "../src/cli/format-summary.js";
import { HuntProgress } from "../src/hunt/hunt-progress.js";
import { memberPalette } from "../src/report/report-palette.js";
import type { RunSummary } from "../src/run/run-scenario.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "packages/harness/bundle/cli.js");

function kcsim(cwd: string, ...args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", env: { ...process.env, INIT_CWD: cwd } });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** Ten KIP-848 members joining a 60-partition group under the planted bug assign-before-revoke: single-owner fails at 0.7 s. */
const doubleOwner = {
  name: "double-owner",
  durationMs: 3_000,
  cluster: { topics: [{ name: "T1", partitions: 60 }] },
  groups: [{ groupId: "g1", members: 10, subscription: ["T1"], staggerMs: 100, app: { revokeCallbackMs: 500 } }],
  bugs: ["assign-before-revoke"],
};

/** The test cases of a JUnit document: name, and the failure's type when it failed. */
function testcases(xml: string): { name: string; failure: string | null }[] {
  return [...xml.matchAll(/<testcase classname="[^"]*" name="([^"]*)" time="[\d.]+"(\/>|>\s*<failure type="([^"]*)")/g)].map((m) => ({
    name: m[1] as string,
    failure: m[3] ?? null,
  }));
}

describe("what the CLI writes", () => {
  it("run --junit: one test case per checker, the failed one with its violation and replay command; run --out names its report", () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-junit-"));
    writeFileSync(join(dir, "double-owner.json"), JSON.stringify(doubleOwner));
    const run = kcsim(dir, "run", "double-owner.json", "--junit", "verdict.xml", "--out", "run");
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("  run directory: run (history.jsonl, summary.json, spec.json); report: run/report.html\n");
    const xml = readFileSync(join(dir, "verdict.xml"), "utf8");
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="kcsim run double-owner seed 1" tests="11" failures="1"/,
    );
    const summary = JSON.parse(readFileSync(join(dir, "run/summary.json"), "utf8")) as RunSummary;
    expect(testcases(xml).map((c) => c.name)).toEqual(Object.keys(summary.checks));
    expect(testcases(xml).filter((c) => c.failure !== null)).toEqual([{ name: "single-owner", failure: "single-owner" }]);
    expect(xml).toMatch(
      /<failure type="single-owner" message="no partition has two live, unfenced owners at once: T1-\d+ owned by member-\d+ and member-\d+ at once">at \d+ us: /,
    );
    expect(xml).toContain("replay: pnpm kcsim run double-owner.json --seed 1 --host inline</failure>");
    expect(xml).toContain(`<property name="historyHash" value="${summary.historyHash}"/>`);
  });

  it("hunt --junit: one test case per seed; outside a terminal the last progress line is the final count", () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-junit-hunt-"));
    writeFileSync(join(dir, "double-owner.json"), JSON.stringify(doubleOwner));
    const hunt = kcsim(
      dir,
      "hunt",
      "double-owner.json",
      "--as-written",
      "--seeds",
      "1..3",
      "--keep-going",
      "--workers",
      "1",
      "--junit",
      "hunt.xml",
    );
    expect(hunt.code).toBe(1);
    const xml = readFileSync(join(dir, "hunt.xml"), "utf8");
    const cases = testcases(xml);
    expect(cases.map((c) => c.name)).toEqual(["seed 1", "seed 2", "seed 3"]);
    expect(cases.every((c) => c.failure?.split(",").includes("single-owner"))).toBe(true);
    expect(xml).toContain("replay: pnpm kcsim replay runs/hunt-double-owner-1-3/seed-1</failure>");
    expect(hunt.stderr.trim().split("\n").at(-1)).toMatch(/^hunt: 3\/3 runs, [\d.]+ runs\/s, 3 failures$/);
  });

  it("HuntProgress: a hunt that stops early still ends its log with where it stopped", () => {
    const lines: string[] = [];
    let clock = 0;
    const progress = new HuntProgress(
      100,
      false,
      (line) => lines.push(line),
      () => clock,
    );
    clock = 1000;
    progress.update(1, 0); // printed at once: the first line
    clock = 2000;
    progress.update(2, 0); // within 5 s of the last line: not printed
    clock = 3000;
    progress.update(3, 1); // the first failure: the hunt stops here
    progress.stop();
    expect(lines).toEqual(["hunt: 1/100 runs, 1.0 runs/s, 0 failures\n", "hunt: 3/100 runs, 1.0 runs/s, 1 failures\n"]);
  });

  it("aligns the checks column after the longest checker name", () => {
    const check = { ok: true, violations: [] };
    const summary = {
      scenario: "s",
      seed: 1,
      host: "inline",
      historyHash: "h",
      replay: "",
      checks: { short: check, "a-checker-name-much-longer-than-22": check },
      metrics: { groups: [] },
    } as unknown as RunSummary;
    const lines = formatSummary(
      summary,
      new Map([
        ["short", "rule one"],
        ["a-checker-name-much-longer-than-22", "rule two"],
      ]),
    ).split("\n");
    const column = (name: string) => (lines.find((l) => l.includes(name)) ?? "").indexOf("rule");
    expect(column("short")).toBe(column("a-checker-name-much-longer-than-22"));
    expect(column("short")).toBeGreaterThan(0);
  });

  it("gives every member a colour of its own, however many members", () => {
    const colours = memberPalette(500);
    expect(new Set(colours).size).toBe(500);
    for (const colour of colours) expect(colour).toMatch(/^#[0-9a-f]{6}$/);
  });
});
