import type { HuntRunResult, HuntTask } from "./hunt-task.js";
import { runHuntTask } from "./run-hunt-task.js";

/** The piscina worker: one task = one seeded run (a thin shell around runHuntTask). */
export default function huntWorker(task: HuntTask): Promise<HuntRunResult> {
  return runHuntTask(task);
}
