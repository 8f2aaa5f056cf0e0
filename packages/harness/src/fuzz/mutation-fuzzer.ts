import { Worker } from "node:worker_threads";
import { entryPoint } from "../kernel/built-module.js";
import type { MutationOutcome } from "./mutation-outcome.js";
import { describePath, type FieldPath, type Mutation, mutate } from "./scenario-mutations.js";

/** One mutation to try: a shipped scenario, a field and what it becomes. */
export interface MutationCase {
  readonly scenarioName: string;
  readonly scenario: unknown;
  readonly path: FieldPath;
  readonly mutation: Mutation;
}

/** A case and what came of it; a hang or an out-of-memory worker is an outcome of its own. */
export interface FuzzResult {
  readonly label: string;
  readonly outcome:
    | MutationOutcome
    | { readonly kind: "hang"; readonly ms: number }
    | { readonly kind: "oom"; readonly error: string; readonly ms: number };
}

export interface FuzzOptions {
  /** Worker threads (each runs one case at a time). */
  readonly workers: number;
  /** Each run's virtual duration is capped here: the budget of a case. */
  readonly capDurationMs: number;
  /** A case that takes longer than this (wall ms) is a hang. */
  readonly timeoutMs: number;
  /** Each worker's heap: a case that outgrows it is an out-of-memory abort. */
  readonly heapMb: number;
}

export function caseLabel(c: MutationCase): string {
  return `${c.scenarioName}: ${describePath(c.path)} = ${c.mutation === "delete" ? "(deleted)" : JSON.stringify(c.mutation)}`;
}

/**
 * Runs each case in a worker thread: a case that hangs is cut off by
 * terminating its worker (synchronous code cannot be interrupted any other
 * way), and one that exhausts its worker's heap kills only that worker.
 */
export async function fuzzMutations(cases: readonly MutationCase[], options: FuzzOptions): Promise<FuzzResult[]> {
  const results: FuzzResult[] = new Array(cases.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    let worker: Worker | null = null;
    try {
      while (next < cases.length) {
        const id = next++;
        const c = cases[id] as MutationCase;
        worker ??= new Worker(entryPoint("fuzz-worker"), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: options.heapMb } });
        const running = worker;
        const started = performance.now();
        const elapsed = () => Math.round(performance.now() - started);
        const outcome = await new Promise<FuzzResult["outcome"]>((resolve) => {
          const timer = setTimeout(() => resolve({ kind: "hang", ms: elapsed() }), options.timeoutMs);
          const done = (value: FuzzResult["outcome"]) => {
            clearTimeout(timer);
            running.off("message", onMessage);
            running.off("error", onError);
            running.off("exit", onExit);
            resolve(value);
          };
          const onMessage = (message: { id: number; outcome: MutationOutcome }) => {
            if (message.id === id) done(message.outcome);
          };
          const onError = (error: Error) => done({ kind: "oom", error: `${error.name}: ${error.message}`, ms: elapsed() });
          const onExit = (code: number) => done({ kind: "oom", error: `worker exited with code ${code}`, ms: elapsed() });
          running.on("message", onMessage);
          running.on("error", onError);
          running.on("exit", onExit);
          running.postMessage({ id, json: JSON.stringify(mutate(c.scenario, c.path, c.mutation)), capDurationMs: options.capDurationMs });
        });
        if (outcome.kind === "hang" || outcome.kind === "oom") {
          await running.terminate();
          worker = null;
        }
        results[id] = { label: caseLabel(c), outcome };
      }
    } finally {
      await worker?.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.workers) }, lane));
  return results;
}

/** What makes an outcome unclean: anything but a one-line refusal or a verdict with no settings error in it. */
export function uncleanReason(result: FuzzResult): string | null {
  const o = result.outcome;
  switch (o.kind) {
    case "rejected":
      return o.line.includes("\n") ? `a refusal of more than one line: ${o.line}` : null;
    case "verdict":
      return o.settingsAsVerdict === null ? null : `a settings error reported as a checker verdict: ${o.settingsAsVerdict}`;
    case "crash":
      return `kcsim failed (exit 3): ${o.error}\n${o.stack}`;
    case "hang":
      return `no outcome within ${o.ms} ms`;
    case "oom":
      return `the run ran out of memory: ${o.error}`;
  }
}
