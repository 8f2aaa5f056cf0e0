#!/usr/bin/env node
/**
 * The kcsim command (bundle/cli.js): kcsim's V8 settings first, then the
 * CLI, which is loaded only once they are set (run/tune-v8.ts says why).
 * From the bundle a command runs from one CommonJS file, cli.cjs, loaded
 * with V8's code cache (run/code-cached-require.ts); help, partition-for,
 * and anything without a cli.cjs beside this file, from the ES modules of
 * cli/cli.ts, which load only what they use (help: almost nothing).
 */
import "../run/tune-v8.js";
import { requireBundledWithCodeCache } from "../run/code-cached-require.js";
import { helpAsked } from "./help-asked.js";

type Cli = typeof import("./cli.js");

/** Commands that load little of the CLI: as ES modules they load only that, where cli.cjs is read whole. */
const LIGHT_COMMANDS: ReadonlySet<string> = new Set(["partition-for"]);

async function loadCli(argv: readonly string[]): Promise<Cli> {
  if (helpAsked(argv) !== null || LIGHT_COMMANDS.has(argv[0] ?? "")) return import("./cli.js");
  const loaded = requireBundledWithCodeCache(import.meta.url, "cli.cjs", argv[0] ?? "");
  if (loaded === null) return import("./cli.js");
  const cli = loaded.exports as Cli;
  // A cache per command: a mistyped one would leave a file behind for a command that does not exist.
  if (cli.isCommand(argv[0] ?? "")) process.once("exit", loaded.saveCache);
  return cli;
}

const argv = process.argv.slice(2);
const { runCli } = await loadCli(argv);
await runCli(argv);
