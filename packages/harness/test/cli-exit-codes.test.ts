import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kcsim, root, shipped } from "./kcsim-cli.js";

const oneLine = (stderr: string) => stderr.trim().split("\n");

describe("exit codes CI can trust: 0 passed, 1 violation, 2 bad input, 3 kcsim failed", () => {
  it("0: every check passed", () => {
    const { code, stdout } = kcsim(["run", "scenarios/sticky-leave.json"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/ok {4}converges/);
  });

  it("1: a checker found a violation", () => {
    // A pinger whose ponger never answers after the faults heal.
    const file = join(mkdtempSync(join(tmpdir(), "kcsim-exit-")), "silent.json");
    const scenario = shipped("ping-pong");
    scenario.nemesis = [{ atMs: 8000, actor: "ponger-1", action: "crash" }];
    writeFileSync(file, JSON.stringify(scenario));
    const { code, stdout } = kcsim(["run", file]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL {2}ping-pong-liveness/);
  });

  it("2: bad input, in one line: flags, scenarios, hunt.json, a --out that cannot be", () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-exit-"));
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const huntDir = join(dir, "seed-1");
    mkdirSync(huntDir);
    writeFileSync(join(huntDir, "scenario.json"), JSON.stringify(shipped("sticky-leave")));
    const cases: string[][] = [
      ["run", "--seed", "-1"],
      ["run", "--seed", "9007199254740992"],
      ["run", "--time-scale", "-1", "--host", "realtime"],
      ["run", "--time-scale", "2"],
      ["run", "--actors-per-worker", "2"],
      ["hunt", "scenarios/ping-pong.json", "--seeds", "9007199254740991..9007199254740993"],
      ["hunt", "scenarios/ping-pong.json", "--workers", "999"],
      ["run", "--out", file],
      ["run", "--out", join(file, "below")],
      ["run", "--out", "/proc/kcsim-out"],
      ["hunt", "scenarios/ping-pong.json", "--out", file],
      ["replay", huntDir],
      ["shrink", huntDir],
    ];
    for (const seed of [-1, 1.5, 1e300]) {
      const failure = join(dir, `bad-seed-${seed}`);
      mkdirSync(failure);
      writeFileSync(join(failure, "scenario.json"), JSON.stringify(shipped("sticky-leave")));
      writeFileSync(join(failure, "hunt.json"), JSON.stringify({ seed, historyHash: "x", failures: [], parameters: {} }));
      cases.push(["replay", failure]);
    }
    // shrink: a checker the hunt.json names that kcsim does not know, and one that passes on the original run.
    const unknownCheck = join(dir, "unknown-check");
    mkdirSync(unknownCheck);
    writeFileSync(join(unknownCheck, "scenario.json"), JSON.stringify(shipped("sticky-leave")));
    writeFileSync(
      join(unknownCheck, "hunt.json"),
      JSON.stringify({ seed: 1, historyHash: "x", failures: [{ check: "nope", t: 0, message: "m" }], parameters: {} }),
    );
    cases.push(["shrink", unknownCheck], ["shrink", unknownCheck, "--check", "converges"]);
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "{ nope");
    cases.push(["run", notJson]);
    const stderrOf = new Map<string, string>();
    for (const args of cases) {
      const { code, stdout, stderr } = kcsim(args);
      stderrOf.set(args.join(" "), stderr);
      expect(code, `${args.join(" ")}: ${stderr}`).toBe(2);
      expect(stdout, args.join(" ")).toBe("");
      expect(oneLine(stderr), args.join(" ")).toHaveLength(1);
      expect(stderr).toMatch(/^kcsim: /);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
    expect(stderrOf.get(`run ${notJson}`)).toMatch(/not\.json:1:3: invalid JSON/);
    expect(stderrOf.get(`replay ${huntDir}`)).toMatch(/half-written hunt failure directory: it has scenario\.json but no hunt\.json/);
    expect(stderrOf.get("run --seed -1")).toBe("kcsim: run: --seed must be an integer >= 0, got '-1'\n");
    expect(stderrOf.get("run --seed 9007199254740992")).toBe(
      "kcsim: run: --seed must be at most 9007199254740991, got '9007199254740992'\n",
    );
    expect(stderrOf.get(`shrink ${unknownCheck}`)).toMatch(/hunt\.json names no checker 'nope'/);
    expect(stderrOf.get(`shrink ${unknownCheck} --check converges`)).toBe(
      "kcsim: shrink: converges passes on the original run with seed 1: nothing to shrink\n",
    );
    expect(existsSync(join(unknownCheck, "shrunk.json"))).toBe(false);
  }, 300_000);

  it("3: kcsim itself failed: one line and the path of a file holding the full stack", () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-exit-"));
    const run = join(dir, "run");
    expect(kcsim(["run", "scenarios/sticky-leave.json", "--out", run]).code).toBe(0);
    // report.html cannot be replaced by the new report: kcsim's own write fails, which is no input error.
    const blocked = join(run, "report.html");
    rmSync(blocked);
    mkdirSync(blocked);
    writeFileSync(join(blocked, "keep"), "");
    const { code, stderr } = kcsim(["report", run], { env: { TMPDIR: dir } });
    expect(code).toBe(3);
    expect(oneLine(stderr)).toHaveLength(1);
    const file = /the full stack is in (\S+)$/.exec(stderr.trim())?.[1];
    expect(file, stderr).toBeDefined();
    expect(existsSync(file as string)).toBe(true);
    expect(readFileSync(file as string, "utf8")).toMatch(/\n\s+at /);
  });

  it("3: a run about to outgrow the V8 heap says so in one line instead of a V8 abort", () => {
    // 1,000 members on 16,000 partitions in a 160 MB heap: the join needs about 160 MB of heap at its peak, twice
    // what the guard lets a run use in a heap this small (it stops with 128 MB left).
    const heavy = shipped("m10-join");
    const group = (heavy.groups as Record<string, unknown>[])[0] as Record<string, unknown>;
    group.members = 1000;
    delete group.joins;
    heavy.cluster = { coordinators: 1, topics: [{ name: "T1", partitions: 16_000 }] };
    const file = join(mkdtempSync(join(tmpdir(), "kcsim-exit-")), "heavy.json");
    writeFileSync(file, JSON.stringify({ ...heavy, name: "heavy", durationMs: 30_000 }));
    const { code, stderr } = kcsim(["run", file], { env: { NODE_OPTIONS: "--max-old-space-size=160" }, cwd: root });
    expect(code).toBe(3);
    expect(oneLine(stderr)).toHaveLength(1);
    expect(stderr).toMatch(/^kcsim: out of memory in the inline run of heavy: \d+ MB of the \d+ MB heap in use; try a smaller run/);
  });
});
