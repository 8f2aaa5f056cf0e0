import type { JsonValue } from "@kcsim/protocol";
import type { GroupProtocol } from "../scenario/expand-groups.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import type { FailureSignature } from "./failure-signature.js";
import type { Swarm } from "./swarm-draw.js";

/** One run of a hunt, as sent to a pool worker: plain data. */
export interface HuntTask {
  /** The base scenario, or a swarm (the whole system drawn from the seed). */
  readonly base: ScenarioFile | Swarm;
  readonly seed: number;
  /** Run the base scenario's own faults with each seed instead of drawing a fault schedule. */
  readonly asWritten: boolean;
  /** Run every group under this protocol (eager, cooperative or consumer). */
  readonly protocol: GroupProtocol | null;
  /** Planted bugs to enable in every run (written into the run's scenario, so its failure replays on its own). */
  readonly bugs?: readonly string[];
  /** Keep a failing run's history (history.jsonl) in its result, to write into its failure directory. */
  readonly withHistory?: boolean;
}

/** A checker that failed in one run, with its first violation. */
export interface HuntFailure {
  readonly check: string;
  readonly t: number;
  readonly message: string;
  /** What kind of failure it is (the events and actor roles of its first violation), to group seeds into findings. */
  readonly signature: FailureSignature;
}

export interface HuntRunResult {
  readonly seed: number;
  /** The run's history hash; empty when a passing run was judged without recording its history (as hunts do). */
  readonly historyHash: string;
  readonly failures: readonly HuntFailure[];
  readonly parameters: Readonly<Record<string, JsonValue>>;
  /** The exact scenario the run executed (the drawn plan), to replay or shrink it. */
  readonly scenario: ScenarioFile;
  readonly virtualMs: number;
  readonly wallMs: number;
  /** A failing run's history.jsonl, when the task asked for it (withHistory). */
  readonly history?: string;
}

/** Whether a hunt ran this drawn plan on past its own length to judge converges (its `extendedToMs`, set by runHuntTask). */
export function ranOn(result: HuntRunResult): boolean {
  return result.parameters.extendedToMs !== undefined;
}
