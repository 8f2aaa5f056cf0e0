#!/usr/bin/env node
import { HELP } from "./help.js";
import { UsageError } from "./usage-error.js";

type Command = (argv: readonly string[]) => number | Promise<number>;

/** Commands load on demand, so `--help` and `partition-for` start fast. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./commands/run.js")).runCommand,
  "partition-for": async () => (await import("./commands/partition-for.js")).partitionForCommand,
  assign: async () => (await import("./commands/assign.js")).assignCommand,
  compare: async () => (await import("./commands/compare.js")).compareCommand,
  replay: async () => (await import("./commands/replay.js")).replayCommand,
  report: async () => (await import("./commands/report.js")).reportCommand,
  hunt: async () => (await import("./commands/hunt.js")).huntCommand,
  shrink: async () => (await import("./commands/shrink.js")).shrinkCommand,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
};

/** Errors that mean bad input (a flag, a scenario, a config, a frame): one line, exit code 2. */
async function isInputError(error: unknown): Promise<boolean> {
  if (error instanceof UsageError) return true;
  const { ConfigError, CodecError } = await import("@kcsim/protocol");
  const { ScenarioError } = await import("../scenario/load-scenario.js");
  return error instanceof ScenarioError || error instanceof ConfigError || error instanceof CodecError;
}

/** The kcsim CLI: one line and exit code 2 for any bad input, never a stack trace. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(HELP);
    return 0;
  }
  const load = COMMANDS[command];
  try {
    if (load === undefined) throw new UsageError(`unknown command '${command}' (try --help)`);
    return await (await load())(rest);
  } catch (error) {
    if (await isInputError(error)) {
      process.stderr.write(`kcsim: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
}

const code = await main(process.argv.slice(2));
process.exitCode = code;
