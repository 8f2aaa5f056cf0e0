import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { kcsimCodeCacheFile } from "../src/run/code-cached-require.js";
import {
  ONE_RUN_COMMANDS,
  V8_TUNING,
  V8_TUNING_ONE_RUN,
  v8FlagName,
  v8TuningFlags,
  v8TuningKindOf,
  v8TuningOf,
} from "../src/run/v8-tuning.js";

/** The built module, for a process of its own: V8's flags are the whole process's. */
const BUILT = fileURLToPath(new URL("../dist/run/v8-tuning.js", import.meta.url));

describe("kcsim's V8 settings (run/v8-tuning.ts)", () => {
  it("sets every flag of the tuning when the process was given none of them", () => {
    expect(v8TuningFlags([])).toEqual([...V8_TUNING]);
    expect(v8TuningFlags(["--max-old-space-size=4096", "--enable-source-maps"])).toEqual([...V8_TUNING]);
    expect(v8TuningFlags([], V8_TUNING_ONE_RUN)).toEqual([...V8_TUNING_ONE_RUN]);
  });

  it("leaves a flag the user gave (node's arguments or NODE_OPTIONS) to the user, in either spelling", () => {
    expect(v8TuningFlags(["--interrupt-budget=1000"])).toEqual(["--max-inlined-bytecode-size-cumulative=460"]);
    expect(v8TuningFlags(["--max_inlined_bytecode_size_cumulative=920"])).toEqual(["--interrupt-budget=135168"]);
    expect(v8TuningFlags(["--interrupt_budget=1", "--max-inlined-bytecode-size-cumulative"])).toEqual([]);
    // A boolean flag is the user's whether they turned it on or off.
    for (const given of ["--turbo-escape", "--no-turbo-escape", "--no_turbo_escape"])
      expect(v8TuningFlags([given], V8_TUNING_ONE_RUN)).toEqual(V8_TUNING_ONE_RUN.filter((flag) => flag !== "--no-turbo-escape"));
    expect(v8FlagName("--no_turbo_loop_peeling")).toBe("--turbo-loop-peeling");
  });

  it("gives the commands that run a scenario once their own settings, and every other process a hunt's", () => {
    for (const command of ["run", "replay", "compare"]) {
      expect(ONE_RUN_COMMANDS.has(command)).toBe(true);
      expect(v8TuningOf(v8TuningKindOf(command))).toBe(V8_TUNING_ONE_RUN);
    }
    for (const command of ["hunt", "shrink", "serve", "worker", "report", "--help", "compression", undefined])
      expect(v8TuningOf(v8TuningKindOf(command))).toBe(V8_TUNING);
  });

  it("applies a command's settings in its process and says which, unless KCSIM_V8_DEFAULTS is set", () => {
    const applied = (command: string, env: NodeJS.ProcessEnv = {}) => {
      const child = spawnSync(
        process.execPath,
        [
          "-e",
          `import(${JSON.stringify(BUILT)}).then((m) => { m.tuneV8(${JSON.stringify(command)}); console.log(process.env.KCSIM_V8_TUNING ?? "none"); })`,
        ],
        { encoding: "utf8", env: { PATH: process.env.PATH, ...env } },
      );
      expect(child.status, child.stderr).toBe(0);
      return child.stdout.trim();
    };
    expect(applied("run")).toBe("one-run");
    expect(applied("hunt")).toBe("many-runs");
    expect(applied("run", { KCSIM_V8_DEFAULTS: "1" })).toBe("none");
  });

  it("names a code cache by the settings it was compiled under: a command's own, or what a worker's process applied", () => {
    const cli = "/b/cli.cjs";
    // A one-run command's cache follows the command, whoever computes its name (a test, the startup bench).
    expect(kcsimCodeCacheFile(cli, "run", [], {})).toBe(kcsimCodeCacheFile(cli, "run", [], { KCSIM_V8_TUNING: "many-runs" }));
    // Another command's follows the settings its process applied (a hunt's, or V8's defaults in a library user's).
    expect(kcsimCodeCacheFile(cli, "hunt", [], { KCSIM_V8_TUNING: "many-runs" })).not.toBe(kcsimCodeCacheFile(cli, "hunt", [], {}));
    // A worker's follows its process: a `kcsim run --host realtime` and a `kcsim serve` keep one each, and a process
    // that applied none (a library user's) runs on V8's defaults.
    const worker = "/b/realtime-worker.cjs";
    expect(kcsimCodeCacheFile(worker, "realtime-worker", [], { KCSIM_V8_TUNING: "one-run" })).not.toBe(
      kcsimCodeCacheFile(worker, "realtime-worker", [], { KCSIM_V8_TUNING: "many-runs" }),
    );
    expect(kcsimCodeCacheFile(worker, "realtime-worker", [], {})).toBe(
      kcsimCodeCacheFile(worker, "realtime-worker", [], { KCSIM_V8_DEFAULTS: "1" }),
    );
    expect(kcsimCodeCacheFile(cli, "run", [], { KCSIM_V8_DEFAULTS: "1" })).not.toBe(kcsimCodeCacheFile(cli, "run", [], {}));
  });

  it("names only V8 flags that this Node's V8 knows", () => {
    const options = spawnSync(process.execPath, ["--v8-options"], { encoding: "utf8" }).stdout;
    for (const flag of [...V8_TUNING, ...V8_TUNING_ONE_RUN]) expect(options).toContain(`  ${v8FlagName(flag)} (`);
  });
});
