import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { threadId } from "node:worker_threads";
import { setImportModule } from "./import-module.js";
import { ONE_RUN_COMMANDS, V8_DEFAULTS_ENV, V8_TUNING_KIND_ENV } from "./v8-tuning.js";

/** A file loaded by requireWithCodeCache: its exports, and what became of its cache. */
export interface CodeCachedModule {
  readonly exports: unknown;
  readonly cache: "accepted" | "rejected" | "absent";
  /**
   * Writes the cache now, with the bytecode of everything compiled so far, unless V8 accepted the one it read
   * (once: later calls do nothing). A process calls it when it exits; a worker thread, which may be terminated
   * without an exit, once its first task has compiled what tasks use.
   */
  readonly saveCache: () => void;
}

/**
 * Loads a CommonJS file as Node's own loader would (the same wrapper
 * function, `require`, `module`, `__filename`, `__dirname`), but compiled
 * with V8's code cache: the bytecode of every function a run of the same
 * file compiled, saved once. A cold `kcsim run` otherwise parses the whole
 * bundle and compiles each function it calls, about two fifths of its
 * compile time. (Node 22's module.enableCompileCache does this for every
 * module; Node 20 has only vm.Script's cachedData.)
 *
 * `cacheFile` is read if it is there; if it was not, or if V8 rejected it
 * (another V8 version or other V8 flags), the caller's saveCache writes it
 * (at exit, or once a worker has compiled what it runs). V8 checks a cache against the source's length only, so the caller must
 * name the cache after the exact file it caches (codeCacheFile: its size
 * and modification time as well as its path; a process still running the
 * bundle a build has just replaced writes its cache under the old file's
 * name, which no process of the new bundle reads). Writing
 * goes through a temporary file and a rename, so processes starting
 * together never read half a cache; a directory that cannot be written is
 * no error (the next process compiles again).
 *
 * The file must not use `import()`: Node 20 gives a script compiled from a
 * cache that another process made no dynamic-import callback, so it would
 * throw there (and only there). Its code imports ES modules through
 * run/import-module.ts, whose hook this loader sets to its own import().
 */
export function requireWithCodeCache(file: string, cacheFile: string): CodeCachedModule {
  const source = readFileSync(file, "utf8");
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // One line, as Node's CommonJS wrapper: the file's line numbers stay its own in stack traces.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const cache = cachedData === undefined ? "absent" : script.cachedDataRejected === true ? "rejected" : "accepted";
  let saved = cache === "accepted";
  const saveCache = () => {
    if (saved) return;
    saved = true;
    // Another process or worker of the same start wrote it meanwhile (a hunt's other workers, say): keep theirs.
    if (cache === "absent" && existsSync(cacheFile)) return;
    writeCodeCache(script, cacheFile);
  };
  setImportModule((url) => import(url));
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, cache, saveCache };
}

function writeCodeCache(script: Script, cacheFile: string): void {
  // Named per thread as well as per process: a hunt's or a lockstep host's workers write theirs at the same moment.
  const temporary = `${cacheFile}.${process.pid}.${threadId}`;
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    writeFileSync(temporary, script.createCachedData());
    renameSync(temporary, cacheFile);
  } catch {
    // A read-only install: every start compiles, as without a cache.
  }
}

/**
 * Where the cache of `file` for one kind of run lives: `.cache/` beside
 * it, one file per `purpose` (a CLI command: each compiles its own part of
 * the bundle), per Node version and V8 flags, whose caches V8 would reject
 * for each other, and per version of the file (its size and modification
 * time, which V8 does not check).
 */
export function codeCacheFile(file: string, purpose: string, v8Flags: readonly string[]): string {
  let version: [number, number] = [0, 0];
  try {
    const { size, mtimeMs } = statSync(file);
    version = [size, mtimeMs];
  } catch {
    // No such file: nothing will be loaded from it, and the name only has to be a name.
  }
  const settings = createHash("sha256")
    .update(JSON.stringify([process.version, process.arch, v8Flags, version]))
    .digest("hex")
    .slice(0, 12);
  const name = purpose.replace(/[^a-z0-9-]/gi, "_").slice(0, 40) || "none";
  return join(dirname(file), ".cache", `${basename(file)}.${name}.${settings}.v8`);
}

/**
 * `name`, a CommonJS file of the bundle beside the module at `besideUrl`
 * (its import.meta.url), loaded with its code cache for `purpose`; null
 * when there is no such file (that module runs from the tsc build).
 */
export function requireBundledWithCodeCache(besideUrl: string, name: string, purpose: string): CodeCachedModule | null {
  const bundled = join(dirname(fileURLToPath(besideUrl)), name);
  return existsSync(bundled) ? requireWithCodeCache(bundled, kcsimCodeCacheFile(bundled, purpose)) : null;
}

/**
 * A worker thread's body, the default export of `name` (a CommonJS file of
 * the bundle beside the worker's entry at `entryUrl`) loaded with its code
 * cache for `purpose`; or, when there is no such file (the entry runs from
 * the tsc build), of the ES module `distModule` beside the entry, which has
 * no cache to save.
 */
export async function loadWorkerBody<T>(
  entryUrl: string,
  name: string,
  purpose: string,
  distModule: string,
): Promise<{ readonly body: T; readonly saveCache: () => void }> {
  const loaded = requireBundledWithCodeCache(entryUrl, name, purpose);
  if (loaded !== null) return { body: (loaded.exports as { default: T }).default, saveCache: loaded.saveCache };
  // Not a literal: the bundler must not take the body into the entry, which in the bundle has the CommonJS file.
  const module = (await import(new URL(distModule, entryUrl).href)) as { default: T };
  return { body: module.default, saveCache: () => {} };
}

/**
 * The code cache of a bundle file of kcsim's for `command` (a CLI command, or what a worker runs), under a
 * process's V8 settings (this one's by default): its flags, NODE_OPTIONS,
 * and which of kcsim's own V8 settings apply (run/v8-tuning.ts): V8's
 * defaults (KCSIM_V8_DEFAULTS), a command's own (a command names its
 * settings), or, for what a worker runs, those its process applied
 * (KCSIM_V8_TUNING: a worker shares its process's settings and environment;
 * a process that applied none, a library user's, runs on V8's defaults).
 */
export function kcsimCodeCacheFile(
  bundled: string,
  command: string,
  execArgv: readonly string[] = process.execArgv,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const tuning =
    env[V8_DEFAULTS_ENV] !== undefined ? "defaults" : ONE_RUN_COMMANDS.has(command) ? "one-run" : (env[V8_TUNING_KIND_ENV] ?? "defaults");
  return codeCacheFile(bundled, command, [...execArgv, env.NODE_OPTIONS ?? "", tuning]);
}
