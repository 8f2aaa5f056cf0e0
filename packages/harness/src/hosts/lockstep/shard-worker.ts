import { workerData } from "node:worker_threads";
import { expose } from "comlink";
import { spinFor } from "../../kernel/cpu-burn.js";
import { ActorLogs } from "../worker/actor-logs.js";
import { comlinkEndpoint } from "../worker/comlink-endpoint.js";
import { loadRegistry } from "../worker/load-registry.js";
import type { WorkerPorts } from "../worker/worker-handle.js";
import type { LockstepShardControl } from "./shard-protocol.js";
import { ShardRuntime } from "./shard-runtime.js";
import { serveWindows } from "./shared-window-channel.js";
import { answerWindow } from "./window-codec.js";

/**
 * A lockstep shard worker's body: a thin shell around ShardRuntime and
 * answerWindow (both tested in one thread), started by worker-entry.ts.
 * `saveCache` writes the code cache of the file this was loaded from (a
 * no-op outside the bundle); it runs when the host flushes the shard's logs
 * at its close, once the run has compiled what a shard runs (a worker
 * thread is terminated without an exit).
 */
export default function serveLockstepShard(saveCache: () => void): void {
  const { controlPort, dataPort } = workerData as WorkerPorts;
  let runtime: ShardRuntime | null = null;
  let logs: ActorLogs | null = null;

  function ready(): ShardRuntime {
    if (runtime === null) throw new Error("lockstep shard: init first");
    return runtime;
  }

  const control: LockstepShardControl = {
    ping: () => true,
    async init(init) {
      const registry = await loadRegistry(init.registryModule);
      const shardLogs = await ActorLogs.open(init.logLevel, init.logDir, () => runtime?.now ?? 0, false);
      logs = shardLogs;
      runtime = new ShardRuntime(init, init.actors, registry, {
        loggerFor: (actor) => shardLogs.loggerFor(actor),
        ...(init.burnCpu ? { burnCpu: spinFor } : {}),
      });
      return runtime.nextDue();
    },
    serve(channel) {
      const shard = ready();
      serveWindows(channel, dataPort, (bytes) => answerWindow(shard, bytes));
    },
    listen() {
      const shard = ready();
      dataPort.on("message", (bytes: Uint8Array) => {
        const reply = answerWindow(shard, bytes);
        dataPort.postMessage(reply, [reply.buffer]);
      });
    },
    snapshot: () => ready().snapshot(),
    flushLogs() {
      logs?.flush();
      saveCache();
    },
  };

  expose(control, comlinkEndpoint(controlPort));
}
