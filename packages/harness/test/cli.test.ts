import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { historyHashOfLines } from "./failure-dir-checks.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "packages/harness/bundle/cli.js");

/** Runs the built CLI the way `pnpm kcsim` does (tests run after `tsc -b`). */
function kcsim(...args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", env: { ...process.env, INIT_CWD: root } });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

describe("kcsim CLI", () => {
  it("prints help", () => {
    const { code, stdout } = kcsim("--help");
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage: pnpm kcsim <command>/);
    expect(stdout).toMatch(/partition-for <groupId>/);
  });

  it("prints one command's part of the help: kcsim <command> --help, -h, kcsim help <command>", () => {
    const hunt = kcsim("hunt", "--help");
    expect(hunt.code).toBe(0);
    expect(hunt.stdout).toMatch(/^Usage: pnpm kcsim hunt \[options\]/);
    expect(hunt.stdout).toMatch(/--as-written/);
    expect(hunt.stdout).not.toMatch(/partition-for|--time-scale/);
    expect(hunt.stdout).toMatch(/Exit codes: 0 every check passed/);
    expect(kcsim("help", "hunt")).toEqual(hunt);
    expect(kcsim("hunt", "scenarios/chaos-consumer.json", "-h")).toEqual(hunt);
    // Both replay entries, and a continuation line of serve's.
    expect(kcsim("help", "replay").stdout).toMatch(/replay <run-dir\|recording>[\s\S]*replay <hunt-failure-dir>[\s\S]*--registry MODULE/);
    expect(kcsim("serve", "--help").stdout).toMatch(/on the realtime host until SIGINT\/SIGTERM/);
    expect(kcsim("help").stdout).toMatch(/Usage: pnpm kcsim <command>/);
    expect(kcsim("nope", "--help")).toEqual({ code: 2, stdout: "", stderr: "kcsim: unknown command 'nope' (try --help)\n" });
  });

  it("partition-for prints the number alone", () => {
    expect(kcsim("partition-for", "my-group")).toEqual({ code: 0, stdout: "12\n", stderr: "" });
    expect(kcsim("partition-for", "group1", "--partitions", "50").stdout).toBe("40\n");
    // "a".hashCode() = 97, and 97 % 7 = 6.
    expect(kcsim("partition-for", "a", "--partitions", "7").stdout).toBe("6\n");
  });

  it("answers bad flags, bad values, unknown commands and bad scenario files with one line and exit code 2", () => {
    const cases = [
      ["run", "--bogus"],
      ["run", "--seed", "-3"],
      ["run", "--host", "cloud"],
      ["partition-for"],
      ["partition-for", "g", "--partitions", "0"],
      ["explode"],
      ["run", "no/such/scenario.json"],
      ["run", "--consumer-config", "no.such.setting=1"],
      ["run", "--consumer-config", "max.poll.interval.ms=soon"],
      ["hunt", "--swarm", "--consumer-config", "max.poll.interval.ms=1000"],
      ["hunt", "--swarm", "--swarm-data"],
      ["hunt", "--swarm-data", "--as-written"],
      ["hunt", "--swarm-migration", "--swarm"],
      ["hunt", "--swarm-data", "scenarios/chaos-data.json"],
      ["hunt", "scenarios/ping-pong.json", "--seeds", "1..2"],
    ];
    for (const args of cases) {
      const { code, stdout, stderr } = kcsim(...args);
      expect(code, args.join(" ")).toBe(2);
      expect(stdout).toBe("");
      expect(stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(stderr).toMatch(/^kcsim: /);
    }
    // Drawn faults need a cluster: a scenario of actors alone is hunted as written, and the hunt says so before it starts.
    expect(kcsim("hunt", "scenarios/ping-pong.json", "--seeds", "1..2").stderr).toBe(
      "kcsim: hunt ping-pong: the scenario has no cluster, and a hunt draws its faults between a cluster and its consumers; hunt it with --as-written (its own faults, with each seed)\n",
    );
    const dir = mkdtempSync(join(tmpdir(), "kcsim-cli-"));
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        name: "x",
        durationMs: 10,
        actors: [{ id: "a", kind: "pinger" }],
        faults: [{ name: "f", drop: { probability: 7 } }],
      }),
    );
    const { code, stderr } = kcsim("run", bad);
    expect(code).toBe(2);
    expect(stderr).toBe(`kcsim: ${bad}: faults[0].drop.probability: Expected number to be less or equal to 1\n`);
  });

  it("runs the default scenario and prints one JSON object with --json", () => {
    const { code, stdout } = kcsim("run", "--json", "--seed", "3");
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0] as string);
    expect(summary).toMatchObject({ seed: 3, host: "inline", scenario: "ping-pong" });
    expect(summary.historyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.checks["actor-exceptions"]).toEqual({ ok: true, violations: [] });
    expect(summary.checks["ping-pong-liveness"].ok).toBe(true);
    expect(summary.metrics.messages).toBeGreaterThan(1000);
  });

  it("compare prints one aligned row per protocol, with the numbers of --json and no trailing spaces", () => {
    const text = kcsim("compare", "scenarios/m10-join.json");
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("kcsim compare scenarios/m10-join.json  seed 1");
    expect(lines[1]).toBe("protocol     rebalances  rounds  time to stable ms  peak unowned  unowned partition-s  paused members");
    for (const line of lines) expect(line, JSON.stringify(line)).toBe(line.trimEnd());
    const json = kcsim("compare", "scenarios/m10-join.json", "--json");
    const rows = (JSON.parse(json.stdout) as { rows: Record<string, string | number>[] }).rows;
    expect(rows.map((r) => r.protocol)).toEqual(["eager", "cooperative", "consumer"]);
    // Each column starts where its header does.
    const starts = [...(lines[1] as string).matchAll(/(?:^| {2})(\S)/g)].map((m) => (m.index ?? 0) + m[0].length - 1);
    expect(starts).toHaveLength(7);
    rows.forEach((row, r) => {
      const line = lines[2 + r] as string;
      const cells = starts.map((start, i) => line.slice(start, starts[i + 1]).trim());
      expect(cells).toEqual(
        [row.protocol, row.rebalances, row.rounds, row.timeToStableMs, row.peakUnowned, row.unownedPartitionSeconds, row.pausedMembers].map(
          String,
        ),
      );
    });
  });

  it("writes the run directory with --out, and the history hash is its lines' (recorded again into a history)", () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-out-"));
    const { code, stdout } = kcsim("run", "scenarios/ping-pong.json", "--out", dir, "--json");
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    const history = readFileSync(join(dir, "history.jsonl"), "utf8");
    const header = JSON.parse(history.split("\n")[0] as string);
    expect(header).toMatchObject({ kcsim: "history", seed: 1, scenario: "ping-pong" });
    expect(historyHashOfLines(history)).toBe(summary.historyHash);
    expect(readFileSync(join(dir, "command.txt"), "utf8")).toMatch(/^pnpm kcsim run scenarios\/ping-pong\.json --seed 1 --host inline/);
  });
});

describe("kcsim assign", () => {
  const dir = mkdtempSync(join(tmpdir(), "kcsim-assign-"));
  const input = join(dir, "group.json");
  writeFileSync(
    input,
    JSON.stringify({
      topics: [{ name: "T1", partitions: 3 }],
      members: [
        { id: "A", instanceId: null, subscriptions: ["T1"], owned: { T1: [0] } },
        { id: "B", instanceId: null, subscriptions: ["T1"], owned: {} },
      ],
    }),
  );

  it("runs the server-side assignors on the JSON input and prints the assignment", () => {
    // uniform: A keeps its current target partition and takes the extra slot (first member).
    expect(kcsim("assign", "--assignor", "uniform", "--input", input)).toEqual({
      code: 0,
      stdout: '{"A":{"T1":[0,1]},"B":{"T1":[2]}}\n',
      stderr: "",
    });
    expect(kcsim("assign", "--assignor", "range", "--input", input).stdout).toBe('{"A":{"T1":[0,1]},"B":{"T1":[2]}}\n');
  });

  it("runs the classic client-side assignors too", () => {
    expect(kcsim("assign", "--assignor", "roundrobin", "--input", input).stdout).toBe('{"A":{"T1":[0,2]},"B":{"T1":[1]}}\n');
    expect(kcsim("assign", "--assignor", "client-range", "--input", input).stdout).toBe('{"A":{"T1":[0,1]},"B":{"T1":[2]}}\n');
  });

  it("reports a bad input with one line naming the field", () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ topics: [], members: [{ id: "A", subscriptions: "T1" }] }));
    const { code, stderr } = kcsim("assign", "--assignor", "uniform", "--input", bad);
    expect(code).toBe(2);
    expect(stderr).toBe(`kcsim: assign: ${bad}: members[0].subscriptions: expected an array of topic names\n`);
    expect(kcsim("assign", "--input", input).stderr).toMatch(/^kcsim: assign: --assignor is required/);
  });
});
