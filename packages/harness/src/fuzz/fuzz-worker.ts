import { parentPort } from "node:worker_threads";
import { judgeMutation } from "./mutation-outcome.js";

/**
 * A mutation fuzzer's worker: one mutated scenario in (as JSON text, parsed
 * here as `kcsim run` parses a file), its outcome out. A thin shell around
 * judgeMutation.
 */
parentPort?.on("message", (task: { readonly id: number; readonly json: string; readonly capDurationMs: number }) => {
  void judgeMutation(JSON.parse(task.json), task.capDurationMs).then((outcome) => parentPort?.postMessage({ id: task.id, outcome }));
});
