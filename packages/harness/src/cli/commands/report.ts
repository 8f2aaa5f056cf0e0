import { relative } from "node:path";
import { RunDirectoryError } from "../../report/run-directory.js";
import { reportRunDirectory, type WrittenReport } from "../../report/write-report.js";
import { parseFlags } from "../parse-flags.js";
import { resolveUserPath, userCwd } from "../paths.js";
import { UsageError } from "../usage-error.js";

/** `kcsim report <run-dir>`: writes report.html into a run directory (the one `kcsim run --out` wrote). */
export async function reportCommand(argv: readonly string[]): Promise<number> {
  const { positionals } = parseFlags("report", argv, {});
  if (positionals.length !== 1) throw new UsageError(`report: expected one run directory, got ${positionals.length}`);
  const dir = resolveUserPath(positionals[0] as string);
  let written: WrittenReport;
  try {
    written = await reportRunDirectory(dir);
  } catch (error) {
    if (error instanceof RunDirectoryError) throw new UsageError(`report: ${error.message}`);
    throw error;
  }
  const shown = relative(userCwd(), written.path) || written.path;
  process.stdout.write(`wrote ${shown} (${Math.ceil(written.bytes / 1024)} KiB)\n`);
  return 0;
}
