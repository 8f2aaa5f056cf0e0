import { checkHeap } from "../run/heap-guard.js";
import { EXIT_INTERNAL, EXIT_OK } from "./exit-codes.js";
import { commandHelp, HELP } from "./help.js";
import { helpAsked } from "./help-asked.js";
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
  worker: async () => (await import("./commands/worker.js")).workerCommand,
  schema: async () => (await import("./commands/schema.js")).schemaCommand,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
};

/** Whether `name` is a kcsim command (the launcher keeps a code cache only for those). */
export function isCommand(name: string): boolean {
  return Object.hasOwn(COMMANDS, name);
}

const writeStderr = (text: string) => process.stderr.write(text);

/** One line and exit code 2 for bad input, one line, a stack file and exit code 3 for kcsim's own failure (cli/fail.ts). */
async function fail(error: unknown, argv: readonly string[]): Promise<number> {
  try {
    const { reportFailure } = await import("./fail.js");
    return reportFailure(error, argv, writeStderr);
  } catch {
    writeStderr(`kcsim: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_INTERNAL;
  }
}

/** The kcsim CLI: its exit codes are the contract in cli/exit-codes.ts. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command = "", ...rest] = argv;
  const asked = helpAsked(argv);
  if (asked === "") {
    process.stdout.write(HELP);
    return EXIT_OK;
  }
  const name = asked ?? command;
  const load = COMMANDS[name];
  try {
    if (load === undefined) throw new UsageError(`unknown command '${name}' (try --help)`);
    if (asked !== null) {
      process.stdout.write(commandHelp(asked) ?? HELP);
      return EXIT_OK;
    }
    return await (await load())(rest);
  } catch (error) {
    stopHeapWatch(); // the command failed: whatever heap it leaves is not a second failure to report
    return fail(error, argv);
  }
}

/** An error thrown where no command can catch it (a timer, a stream): the same one line and exit code. */
async function failOutside(error: unknown): Promise<void> {
  process.exitCode = await fail(error, process.argv.slice(2));
  process.exit();
}

/**
 * The worker hosts and hunts wait on the event loop: a look at the heap
 * four times a second turns a heap about to run out into one line (exit 3)
 * instead of a V8 abort. The inline host, which never yields, checks
 * inside its loop (run/heap-guard.ts).
 */
let heapWatch: NodeJS.Timeout | null = null;
function stopHeapWatch(): void {
  if (heapWatch !== null) clearInterval(heapWatch);
  heapWatch = null;
}

/**
 * The kcsim process: errors that escape a command, the heap watch, then the
 * command; its exit code becomes the process's. The script entries call it
 * (cli/main.ts, and cli/launch.ts through the bundle's cli.cjs).
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  process.on("uncaughtException", (error) => void failOutside(error));
  process.on("unhandledRejection", (reason) => void failOutside(reason));
  heapWatch = setInterval(() => {
    try {
      checkHeap("while waiting on workers");
    } catch (error) {
      stopHeapWatch();
      void failOutside(error);
    }
  }, 250);
  heapWatch.unref();
  const code = await main(argv);
  stopHeapWatch();
  process.exitCode = code;
}
