import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { OutputError } from "./output-error.js";

/** Every file and directory `run --out` (and `replay --out`) writes: what a new run into the same directory clears. */
export const RUN_DIR_ENTRIES = [
  "history.jsonl",
  "summary.json",
  "command.txt",
  "spec.json",
  "report.html",
  "recording.jsonl",
  "logs",
] as const;

/** One of a run's files, or the temporary file of an atomic write of one that was cut short ("summary.json.1234"). */
function isRunEntry(name: string): boolean {
  return RUN_DIR_ENTRIES.some((entry) => name === entry || name.startsWith(`${entry}.`));
}

/** Kernel filesystems: writing a run there hangs or means nothing. */
const SPECIAL_ROOTS = ["/proc", "/sys", "/dev"];

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? (error instanceof Error ? error.message : String(error));
}

/** The nearest existing ancestor of a path (the path itself when it exists). */
function nearestExisting(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir)) {
    const parent = dirname(dir);
    if (parent === dir) return dir;
    dir = parent;
  }
  return dir;
}

/** Refuses paths under /proc, /sys and /dev, following symlinks. */
function refuseSpecial(flag: string, path: string): void {
  let real = nearestExisting(path);
  try {
    real = realpathSync(real);
  } catch {
    // an unreadable ancestor: mkdir below says why
  }
  for (const root of SPECIAL_ROOTS) {
    if (real === root || real.startsWith(`${root}/`)) {
      throw new OutputError(`${flag} ${path}: ${root} is a kernel filesystem, not a place for run files (give a directory on disk)`);
    }
  }
}

/** Creates the directory (and its parents) and proves it is writable, before any run starts. */
function createWritable(flag: string, path: string): void {
  if (existsSync(path) && !statSync(path).isDirectory()) throw new OutputError(`${flag} ${path}: exists and is not a directory`);
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    throw new OutputError(`${flag} ${path}: cannot create the directory (${reason(error)})`);
  }
  const probe = join(path, `.kcsim-probe-${process.pid}`);
  try {
    writeFileSync(probe, "");
    unlinkSync(probe);
  } catch (error) {
    throw new OutputError(`${flag} ${path}: cannot write there (${reason(error)})`);
  }
}

/**
 * Makes `path` ready for one run's files before the run starts: created,
 * writable, and holding nothing of an earlier run. A directory that holds
 * kcsim's run files has them removed (a new run is written as a whole,
 * never mixed with the last one's recording); a directory holding anything
 * else is refused rather than cleared.
 */
export function prepareRunDir(flag: string, path: string): void {
  refuseSpecial(flag, path);
  if (existsSync(path) && statSync(path).isDirectory()) {
    const foreign = readdirSync(path).filter((name) => !isRunEntry(name));
    if (foreign.length > 0) {
      const shown = foreign.slice(0, 3).join(", ") + (foreign.length > 3 ? ", ..." : "");
      throw new OutputError(`${flag} ${path}: holds files that are not a kcsim run's (${shown}); give a new or empty directory`);
    }
    for (const name of readdirSync(path)) rmSync(join(path, name), { recursive: true, force: true });
  }
  createWritable(flag, path);
}

/**
 * Makes a hunt's output directory ready before the first seed runs. Unlike
 * a run directory it is not cleared: a resumed hunt adds its failures to
 * the ones already there (each failure directory is rewritten whole).
 */
export function prepareHuntDir(flag: string, path: string): void {
  refuseSpecial(flag, path);
  createWritable(flag, path);
}
