import type { HuntRunResult } from "./hunt-task.js";

/**
 * One finding of a hunt: every failing seed whose failure has the same
 * signature (the checker, the kinds of the violating events, the roles of
 * the actors in them). A seed that fails two checkers counts in two
 * findings.
 */
export interface Finding {
  readonly check: string;
  readonly events: readonly string[];
  readonly roles: readonly string[];
  /** Ascending. */
  readonly seeds: readonly number[];
  /** The first violation of the lowest seed, as an example. */
  readonly example: { readonly seed: number; readonly message: string };
}

/** Groups failing runs by signature: the largest finding first, ties by lowest seed. */
export function groupFindings(results: readonly HuntRunResult[]): Finding[] {
  const bySignature = new Map<
    string,
    { check: string; events: readonly string[]; roles: readonly string[]; seeds: number[]; example: Finding["example"] }
  >();
  for (const result of [...results].sort((a, b) => a.seed - b.seed)) {
    for (const failure of result.failures) {
      const { events, roles } = failure.signature;
      const key = JSON.stringify([failure.check, events, roles]);
      const finding = bySignature.get(key);
      if (finding === undefined)
        bySignature.set(key, {
          check: failure.check,
          events,
          roles,
          seeds: [result.seed],
          example: { seed: result.seed, message: failure.message },
        });
      else if (finding.seeds.at(-1) !== result.seed) finding.seeds.push(result.seed);
    }
  }
  return [...bySignature.values()].sort((a, b) => b.seeds.length - a.seeds.length || (a.seeds[0] ?? 0) - (b.seeds[0] ?? 0));
}

/** At most this many seeds are listed per finding in the text summary (--json lists them all). */
const SHOWN_SEEDS = 20;

/** The findings as the hunt summary prints them: a heading, then one line per finding. */
export function formatFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return "";
  const lines = [
    `${findings.length} ${findings.length === 1 ? "finding" : "findings"} by signature (checker; violating events; actor roles):`,
  ];
  for (const finding of findings) {
    const n = finding.seeds.length;
    const shown = finding.seeds.slice(0, SHOWN_SEEDS).join(", ");
    const more = n > SHOWN_SEEDS ? `, ... ${n - SHOWN_SEEDS} more` : "";
    const list = (items: readonly string[]) => (items.length === 0 ? "-" : items.join(", "));
    lines.push(`  ${finding.check}; ${list(finding.events)}; ${list(finding.roles)}: ${n} ${n === 1 ? "seed" : "seeds"} (${shown}${more})`);
  }
  return `${lines.join("\n")}\n`;
}
