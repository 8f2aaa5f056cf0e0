import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./usage-error.js";

type Options = Record<string, { readonly type: "string" | "boolean"; readonly multiple?: boolean }>;

/** The values parseArgs yields for these options: strings or booleans by their declared type, a list for a repeatable flag. */
export type FlagValues<O extends Options> = {
  [K in keyof O]?: O[K]["multiple"] extends true ? string[] : O[K]["type"] extends "boolean" ? boolean : string;
};

export interface ParsedFlags<O extends Options> {
  readonly values: FlagValues<O>;
  readonly positionals: string[];
}

/**
 * `--seed -1` as `--seed=-1`: parseArgs refuses a value that starts with a
 * dash as "ambiguous", which hides the real problem; joined, the value
 * reaches the flag's own check ("must be an integer >= 0, got '-1'").
 */
function joinDashedValues(argv: readonly string[], options: Options): string[] {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : null;
    if (name !== null && options[name]?.type === "string" && next !== undefined && /^-[\d.]/.test(next)) {
      args.push(`${arg}=${next}`);
      i++;
    } else {
      args.push(arg);
    }
  }
  return args;
}

/**
 * node:util parseArgs in strict mode, with its errors turned into one-line
 * usage errors that name the command.
 */
export function parseFlags<O extends Options>(command: string, argv: readonly string[], options: O): ParsedFlags<O> {
  try {
    const args = joinDashedValues(argv, options);
    const parsed = parseArgs({ args, options: options as ParseArgsConfig["options"], allowPositionals: true, strict: true });
    return { values: parsed.values as FlagValues<O>, positionals: parsed.positionals };
  } catch (error) {
    // parseArgs appends advice after the first sentence ("To specify a positional..."); keep the problem.
    const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]?.split(". ")[0] ?? "";
    throw new UsageError(`${command}: ${message}`);
  }
}

/** A flag that must be a non-negative safe integer. */
export function integerFlag(command: string, name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min) throw new UsageError(`${command}: --${name} must be an integer >= ${min}, got '${value}'`);
  // Past 2^53 a number no longer names one integer: the seed (or count) asked for could silently be another.
  if (!Number.isSafeInteger(n)) throw new UsageError(`${command}: --${name} must be at most ${Number.MAX_SAFE_INTEGER}, got '${value}'`);
  return n;
}

/** A flag restricted to a set of values. */
export function choiceFlag<T extends string>(
  command: string,
  name: string,
  value: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${command}: --${name} must be one of ${choices.join("|")}, got '${value}'`);
  }
  return value as T;
}
