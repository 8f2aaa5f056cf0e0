import { isInputError, oneLine } from "../cli/fail.js";
import { runScenario } from "../run/run-scenario.js";
import { validateScenario } from "../scenario/load-scenario.js";

/** What kcsim did with one mutated scenario. */
export type MutationOutcome =
  /** Refused as bad input: exit code 2 and this one line. */
  | { readonly kind: "rejected"; readonly line: string; readonly ms: number }
  /** Ran and was judged: the checkers that failed. */
  | { readonly kind: "verdict"; readonly failing: readonly string[]; readonly settingsAsVerdict: string | null; readonly ms: number }
  /** kcsim itself failed (exit code 3): a bug. */
  | { readonly kind: "crash"; readonly error: string; readonly stack: string; readonly ms: number };

/** A settings error that reached a checker instead of the load-time checks. */
const SETTINGS_ERROR = /[A-Za-z]*ConfigError: /;

/**
 * Loads a mutated scenario as `kcsim run` would and, when it is valid, runs
 * it inline with its duration capped (the fuzzer's budget), then
 * classifies the result the way the CLI's exit code does.
 */
export async function judgeMutation(scenario: unknown, capDurationMs: number): Promise<MutationOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const valid = validateScenario(scenario, "mutated.json");
    const { summary } = await runScenario({ ...valid, durationMs: Math.min(valid.durationMs, capDurationMs) }, { host: "inline" });
    const failing = Object.entries(summary.checks)
      .filter(([, check]) => !check.ok)
      .map(([name]) => name);
    const settings = Object.values(summary.checks)
      .flatMap((check) => check.violations)
      .find((v) => SETTINGS_ERROR.test(v.message));
    return { kind: "verdict", failing, settingsAsVerdict: settings?.message ?? null, ms: ms() };
  } catch (error) {
    if (isInputError(error)) return { kind: "rejected", line: `kcsim: ${oneLine(error)}`, ms: ms() };
    return {
      kind: "crash",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? (error.stack ?? "") : "",
      ms: ms(),
    };
  }
}
