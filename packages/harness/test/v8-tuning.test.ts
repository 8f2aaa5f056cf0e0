import { describe, expect, it } from "vitest";
import { V8_TUNING, v8TuningFlags } from "../src/run/v8-tuning.js";

describe("kcsim's V8 settings (run/v8-tuning.ts)", () => {
  it("sets every flag of the tuning when the process was given none of them", () => {
    expect(v8TuningFlags([])).toEqual([...V8_TUNING]);
    expect(v8TuningFlags(["--max-old-space-size=4096", "--enable-source-maps"])).toEqual([...V8_TUNING]);
  });

  it("leaves a flag the user gave (node's arguments or NODE_OPTIONS) to the user, in either spelling", () => {
    expect(v8TuningFlags(["--interrupt-budget=1000"])).toEqual(["--max-inlined-bytecode-size-cumulative=460"]);
    expect(v8TuningFlags(["--max_inlined_bytecode_size_cumulative=920"])).toEqual(["--interrupt-budget=135168"]);
    expect(v8TuningFlags(["--interrupt_budget=1", "--max-inlined-bytecode-size-cumulative"])).toEqual([]);
  });

  it("names only V8 flags that this Node's V8 knows", async () => {
    const { spawnSync } = await import("node:child_process");
    const options = spawnSync(process.execPath, ["--v8-options"], { encoding: "utf8" }).stdout;
    for (const flag of V8_TUNING) expect(options).toContain(`  ${flag.slice(0, flag.indexOf("="))} (`);
  });
});
