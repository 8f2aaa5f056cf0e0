/**
 * The exit codes of every kcsim command, the contract CI relies on:
 * 0 every check passed, 1 a checker found a violation, 2 bad input (a
 * flag, a scenario, a settings value, a file kcsim reads), 3 kcsim itself
 * failed. An interrupted run or hunt exits as a shell reports the signal
 * (128 + its number), after saying what it finished.
 */
export const EXIT_OK = 0;
export const EXIT_VIOLATION = 1;
export const EXIT_INPUT = 2;
export const EXIT_INTERNAL = 3;
export const EXIT_SIGINT = 130;
export const EXIT_SIGTERM = 143;

/** The exit code for a finished run: 0 when every checker passed, 1 otherwise. */
export function verdictExitCode(checks: Readonly<Record<string, { readonly ok: boolean }>>): number {
  return Object.values(checks).every((check) => check.ok) ? EXIT_OK : EXIT_VIOLATION;
}

/** The exit code of a run or hunt ended by a signal. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return signal === "SIGTERM" ? EXIT_SIGTERM : EXIT_SIGINT;
}
