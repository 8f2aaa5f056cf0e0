import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, kcsim, root } from "./kcsim-cli.js";

const lines = (file: string) => readFileSync(file, "utf8").trim().split("\n");

/** A realtime ping-pong run into a fresh directory (20 s of virtual time at 2% speed). */
function realtimeRun(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "kcsim-out-")), "run");
  const { code, stderr } = kcsim(["run", "scenarios/ping-pong.json", "--host", "realtime", "--time-scale", "0.02", "--out", dir]);
  // The realtime run is judged by the real clock: a loaded machine may fail a checker, never the recording.
  expect([0, 1], stderr).toContain(code);
  return dir;
}

/** Waits until `ready()` or the deadline (a loaded machine is slow to start workers). */
async function until(ready: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function started(args: readonly string[]) {
  const child = spawn(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, INIT_CWD: root } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe("a realtime run's recording", () => {
  it("replays, and replay never loads a module the recording names (a planted one stays unloaded)", () => {
    const dir = realtimeRun();
    const recording = join(dir, "recording.jsonl");
    expect(JSON.parse(lines(recording).at(-1) as string)).toMatchObject({ r: "end" });
    const replayed = kcsim(["replay", dir, "--json"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).equal).toBe(true);

    const marker = join(dir, "..", "planted-module-ran");
    const planted = join(dir, "..", "planted.mjs");
    writeFileSync(
      planted,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const registry = new Map();\n`,
    );
    const [header, ...rest] = lines(recording);
    writeFileSync(recording, `${[JSON.stringify({ ...JSON.parse(header as string), registryModule: planted }), ...rest].join("\n")}\n`);
    const refused = kcsim(["replay", dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /was recorded with actors from the module .*planted\.mjs; kcsim does not load a module a recording names/,
    );
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
  });

  it("is refused when incomplete, empty, or another run's; a reused --out keeps nothing of the last run", () => {
    const dir = realtimeRun();
    const recording = join(dir, "recording.jsonl");
    const all = lines(recording);

    const cut = join(dir, "..", "cut");
    mkdirSync(cut);
    writeFileSync(join(cut, "recording.jsonl"), `${all.slice(0, -1).join("\n")}\n`);
    expect(kcsim(["replay", cut]).stderr).toMatch(/incomplete recording: it has no end line/);
    writeFileSync(join(cut, "recording.jsonl"), `${all[0]}\n`);
    const headerOnly = kcsim(["replay", cut]);
    expect(headerOnly.code).toBe(2);
    expect(headerOnly.stderr).toMatch(/incomplete recording: it has no end line .*0 entries recorded/);

    // Another run's recording beside this run's summary.
    const other = join(dir, "..", "other");
    expect(kcsim(["run", "scenarios/ping-pong.json", "--seed", "2", "--out", other]).code).toBe(0);
    writeFileSync(join(other, "recording.jsonl"), readFileSync(recording));
    const foreign = kcsim(["replay", other]);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(/recording\.jsonl belongs to another run than .*summary\.json/);

    // A new run into the same directory clears the old one's files: no stale recording replays as "equal".
    const reused = kcsim(["run", "scenarios/sticky-leave.json", "--out", dir]);
    expect(reused.code).toBe(0);
    expect(existsSync(recording)).toBe(false);
    const after = kcsim(["replay", dir]);
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/neither a hunt failure directory .* nor a realtime run directory/);

    // A directory that holds anything else is refused, not cleared.
    writeFileSync(join(dir, "notes.txt"), "mine");
    const refused = kcsim(["run", "scenarios/sticky-leave.json", "--out", dir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/holds files that are not a kcsim run's \(notes\.txt\)/);
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");
  });
});

describe("interruptions", () => {
  it("Ctrl-C during a realtime run with --out keeps the recording and the summary, and the recording replays", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "kcsim-int-")), "run");
    // 20 s of virtual time in 20 s: the interrupt comes long before the end.
    const run = started(["run", "scenarios/ping-pong.json", "--host", "realtime", "--time-scale", "1", "--out", dir]);
    const recording = join(dir, "recording.jsonl");
    // The recording streams: entries reach the file while the run goes on.
    await until(() => existsSync(recording) && readFileSync(recording, "utf8").split("\n").length > 50);
    run.child.kill("SIGINT");
    const code = await run.exited;
    expect(code, run.err()).toBe(130);
    expect(run.err()).toMatch(/^kcsim: run interrupted by SIGINT at [\d.]+ ms of virtual time; the recording and summary are in /);
    expect(run.out()).toMatch(/INTERRUPTED at [\d.]+ ms of virtual time: judged up to then/);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.interruptedAtMs).toBeGreaterThan(0);
    expect(summary.interruptedAtMs).toBeLessThan(20_000);
    expect(JSON.parse(lines(recording).at(-1) as string)).toMatchObject({ r: "end", interrupted: true, historyHash: summary.historyHash });
    const replayed = kcsim(["replay", dir, "--json"]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).equal).toBe(true);
  });

  it("Ctrl-C during a hunt prints what finished and the command that runs the seeds left, which completes the hunt", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "kcsim-int-")), "hunt");
    // Every seed fails with this bug planted, so each finished seed leaves a failure directory.
    const args = ["hunt", "scenarios/static-restart.json", "--as-written", "--bug", "static-rejoin-bumps-epoch"];
    const hunt = started([...args, "--keep-going", "--seeds", "1..8", "--workers", "1", "--out", out]);
    await until(() => /FAIL seed \d+/.test(hunt.out()), 120_000);
    hunt.child.kill("SIGINT");
    expect(await hunt.exited).toBe(130);
    const text = hunt.out();
    const finished = Number(/hunt interrupted by SIGINT: (\d+) of 8 runs finished; the seeds left: (\S+)/.exec(text)?.[1]);
    expect(finished).toBeGreaterThanOrEqual(1);
    expect(finished).toBeLessThan(8);
    const resume = /^resume: pnpm kcsim (.*)$/m.exec(text)?.[1];
    expect(resume, text).toBeDefined();
    expect(resume).toContain(`--out ${out}`);
    const resumed = kcsim((resume as string).split(" "));
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.stdout).toMatch(new RegExp(`hunt static-restart: ${8 - finished} runs? of seeds `));
    // Between the two parts, every seed ran once and left its failure directory.
    for (let seed = 1; seed <= 8; seed++) expect(existsSync(join(out, `seed-${seed}`, "hunt.json")), `seed ${seed}`).toBe(true);
  });
});
