import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const script = (...args: string[]) =>
  spawnSync(process.execPath, ["scripts/profile-by-module.mjs", ...args], { cwd: ROOT, encoding: "utf8" });

let dir: string | null = null;
const scratch = () => {
  dir = mkdtempSync(join(tmpdir(), "kcsim-profile-by-module-"));
  return dir;
};
afterEach(() => {
  if (dir !== null) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** A bundle as esbuild writes it: each source module begins with a comment line naming it. */
const BUNDLE = [
  '"use strict";', // line 0: before the first module
  "// packages/harness/dist/kernel/timer-heap.js",
  "function push() {}", // line 2
  "// packages/member/dist/consumer/application-thread.js",
  "function step() {}", // line 4
  "function poll() {}", // line 5
  "// node_modules/msgpackr/unpack.js",
  "function unpack() {}", // line 7
  "// packages/harness/dist/index.js",
  "function main() {}", // line 9
].join("\n");

interface Frame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

/** A V8 CPU profile whose samples land on `frames` (index i: samples[i] is node i + 2) with the given time deltas. */
function profileOf(frames: readonly Frame[], samples: readonly number[], deltas: readonly number[]) {
  const nodes = [
    { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1, columnNumber: -1, scriptId: "0" }, children: [] as number[] },
    ...frames.map((frame, i) => ({ id: i + 2, callFrame: { ...frame, columnNumber: 0, scriptId: "1" }, children: [] as number[] })),
  ];
  return { nodes, startTime: 0, endTime: deltas.reduce((a, b) => a + b, 0), samples: samples.map((i) => i + 2), timeDeltas: deltas };
}

describe("scripts/profile-by-module.mjs (a CPU profile's self time by source module)", () => {
  it("places each sample in the bundled module whose mark precedes its function, and groups modules by package", () => {
    const root = scratch();
    const bundle = join(root, "bench.js");
    writeFileSync(bundle, BUNDLE);
    const url = pathToFileURL(bundle).href;
    const frames: Frame[] = [
      { functionName: "push", url, lineNumber: 2 },
      { functionName: "step", url, lineNumber: 4 },
      { functionName: "poll", url, lineNumber: 5 },
      { functionName: "unpack", url, lineNumber: 7 },
      { functionName: "(garbage collector)", url: "", lineNumber: -1 },
      { functionName: "readFileUtf8", url: "", lineNumber: -1 },
      { functionName: "compile", url: "node:internal/modules/cjs/loader", lineNumber: 10 },
      { functionName: "preamble", url, lineNumber: 0 },
      { functionName: "decode", url: pathToFileURL(join(root, "node_modules/.pnpm/x@1/node_modules/lib/index.js")).href, lineNumber: 3 },
    ];
    // Time in microseconds: application-thread 3 ms + 1 ms, timer-heap 2 ms, the collector 2 ms, the rest 0.5 ms each: 10.5 ms.
    const profile = profileOf(frames, [1, 0, 2, 4, 3, 5, 6, 7, 8], [3000, 2000, 1000, 2000, 500, 500, 500, 500, 500]);
    const path = join(root, "run.cpuprofile");
    writeFileSync(path, JSON.stringify(profile));
    const out = script(path);
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    expect(out.stdout).toBe(
      [
        "self time by group (11 ms sampled)",
        "  4 ms   38.1%  member",
        "  2 ms   19.0%  (garbage collector)",
        "  2 ms   19.0%  harness/kernel",
        "  1 ms    4.8%  bench.js (before its first module)",
        "  1 ms    4.8%  lib",
        "  1 ms    4.8%  msgpackr",
        "  1 ms    4.8%  native code",
        "  1 ms    4.8%  node",
        "by module",
        "  4 ms   38.1%  packages/member/dist/consumer/application-thread.js",
        "  2 ms   19.0%  (garbage collector)",
        "  2 ms   19.0%  packages/harness/dist/kernel/timer-heap.js",
        "  1 ms    4.8%  bench.js (before its first module)",
        "  1 ms    4.8%  native readFileUtf8",
        "  1 ms    4.8%  node:internal/modules/cjs/loader",
        "  1 ms    4.8%  node_modules/lib/index.js",
        "  1 ms    4.8%  node_modules/msgpackr/unpack.js",
        "",
      ].join("\n"),
    );
    const cut = script("--top", "2", path);
    expect(cut.stdout.split("\n")).toEqual([
      "self time by group (11 ms sampled)",
      "  4 ms   38.1%  member",
      "  2 ms   19.0%  (garbage collector)",
      "  and 6 more groups: 5 ms, 42.9%",
      "by module",
      "  4 ms   38.1%  packages/member/dist/consumer/application-thread.js",
      "  2 ms   19.0%  (garbage collector)",
      "  and 6 more modules: 5 ms, 42.9%",
      "",
    ]);
  });

  it("reads a real profile of a bundled run: the kernel and the router are there, and the groups add up to the samples", () => {
    const root = scratch();
    const run = spawnSync(
      process.execPath,
      [`--cpu-prof-dir=${root}`, "--cpu-prof", "packages/harness/bundle/cli.js", "run", "scenarios/ping-pong.json"],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(run.status).toBe(0);
    const [profile] = readdirSync(root).filter((name) => name.endsWith(".cpuprofile"));
    expect(profile).toBeDefined();
    const out = script("--top", "1000", join(root, profile as string));
    expect(out.status).toBe(0);
    const lines = out.stdout.split("\n");
    const total = Number((lines[0]?.match(/\(([\d,]+) ms sampled\)/)?.[1] ?? "").replaceAll(",", ""));
    const groups = lines.slice(1, lines.indexOf("by module"));
    const shares = groups.map((line) => Number(line.match(/([\d.]+)%/)?.[1]));
    expect(total).toBeGreaterThan(0);
    // Each share is rounded to a tenth of a percent.
    expect(Math.abs(shares.reduce((a, b) => a + b, 0) - 100)).toBeLessThanOrEqual(0.05 * shares.length + 1e-9);
    const names = groups.map((line) => line.slice(line.indexOf("%") + 3));
    expect(names).toContain("harness/kernel");
    expect(names).toContain("harness/router");
  });

  it("refuses bad input in one line, exit code 2", () => {
    const root = scratch();
    const notJson = join(root, "a.cpuprofile");
    writeFileSync(notJson, "{");
    const notProfile = join(root, "b.cpuprofile");
    writeFileSync(notProfile, JSON.stringify({ nodes: [] }));
    const badSample = join(root, "c.cpuprofile");
    writeFileSync(badSample, JSON.stringify({ nodes: [], samples: [7], timeDeltas: [1] }));
    for (const [args, message] of [
      [[], "usage: node scripts/profile-by-module.mjs [--top N] PROFILE.cpuprofile"],
      [["a", "b"], "usage: node scripts/profile-by-module.mjs [--top N] PROFILE.cpuprofile"],
      [["--top", "0", notJson], "--top needs a whole number above 0, got '0'"],
      [["--top"], "--top needs a whole number above 0, got ''"],
      [[join(root, "missing.cpuprofile")], `${join(root, "missing.cpuprofile")}: no such file`],
      [[notJson], `${notJson}: not JSON`],
      [[notProfile], `${notProfile}: not a V8 CPU profile (nodes, samples and timeDeltas expected)`],
      [[badSample], `${badSample}: sample 0 names node 7, which the profile does not have`],
    ] as const) {
      const out = script(...args);
      expect(out.status).toBe(2);
      expect(out.stderr).toBe(`profile-by-module: ${message}\n`);
      expect(out.stdout).toBe("");
    }
  });
});
