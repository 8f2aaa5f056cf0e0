import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { entryPoint } from "../kernel/built-module.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { runNodeChild } from "./child-cpu.js";

/** The size runs of scenarios/big (each must complete with --out in at most 2 GB of resident memory). */
const BIG_RUNS = ["join-1000x9000", "chaos-50x1000x600"] as const;

/** Preloaded into the child: at exit it reports its peak resident set size (KiB), which a parent cannot read from Node. */
const REPORT_PEAK_RSS = `data:text/javascript,process.on("exit",()=>process.stderr.write("kcsim-bench maxrss "+process.resourceUsage().maxRSS+"\\n"))`;

export const bigRunBench: BenchSuite = {
  name: "big-runs",
  description: "the size runs of scenarios/big with --out: exit code, CPU and peak RSS of the whole process (on demand)",
  async run() {
    const rows: BenchRow[] = [];
    for (const name of BIG_RUNS) {
      const out = mkdtempSync(join(tmpdir(), `kcsim-big-${name}-`));
      try {
        const child = await runNodeChild([
          "--import",
          REPORT_PEAK_RSS,
          entryPoint("cli"),
          "run",
          `scenarios/big/${name}.json`,
          "--out",
          join(out, "run"),
        ]);
        const rssKiB = Number(/kcsim-bench maxrss (\d+)/.exec(child.stderr)?.[1] ?? Number.NaN);
        if (child.code !== 0) throw new Error(`big-runs: ${name} exited ${child.code}: ${child.stderr.split("\n")[0]}`);
        const history = /history (\d+) lines/.exec(child.stdout)?.[1] ?? "?";
        rows.push({
          suite: "big-runs",
          case: `${name} with --out: peak RSS`,
          value: Math.round(rssKiB / 1024),
          unit: "MiB",
          note: `exit 0 (every check passed), ${child.cpuMs === null ? "?" : (child.cpuMs / 1000).toFixed(1)} s CPU, ${history} history lines; limit 2,048 MiB`,
        });
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    }
    return rows;
  },
};
