import { workerData } from "node:worker_threads";
import { decodeUnchecked } from "@kcsim/protocol";
import { expose } from "comlink";
import { spinFor } from "../../kernel/cpu-burn.js";
import { ActorLogs } from "../worker/actor-logs.js";
import { comlinkEndpoint } from "../worker/comlink-endpoint.js";
import { loadRegistry } from "../worker/load-registry.js";
import { ownedBytes } from "../worker/owned-bytes.js";
import type { WorkerPorts } from "../worker/worker-handle.js";
import type { DeliveryBatch, RealtimeShardControl } from "./realtime-protocol.js";
import { RealtimeShard } from "./realtime-shard.js";
import { VirtualClock } from "./virtual-clock.js";

/**
 * A realtime shard worker's body: a thin shell around RealtimeShard (tested
 * in one thread) with real timers, started by worker-entry.ts. `saveCache`
 * writes the code cache of the file this was loaded from (a no-op outside
 * the bundle); it runs when the host flushes the shard's logs at the run's
 * end (and before a crash fault ends the worker, when logs are kept), once
 * the shard has compiled what it runs (a worker thread is terminated
 * without an exit).
 */
export default function serveRealtimeShard(saveCache: () => void): void {
  const { controlPort, dataPort } = workerData as WorkerPorts;
  let shard: RealtimeShard | null = null;
  let logs: ActorLogs | null = null;
  let timeScale = 1;

  function ready(): RealtimeShard {
    if (shard === null) throw new Error("realtime shard: init first");
    return shard;
  }

  const control: RealtimeShardControl = {
    ping: () => true,
    async init(init) {
      const registry = await loadRegistry(init.registryModule);
      timeScale = init.timeScale;
      const shardLogs = await ActorLogs.open(init.logLevel, init.logDir, () => shard?.now ?? 0, true);
      logs = shardLogs;
      shard = new RealtimeShard(
        init,
        init.actors,
        registry,
        {
          set: (delayMs, fire) => setTimeout(fire, delayMs),
          clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
          defer: (fn) => setImmediate(fn),
        },
        (batch) => {
          const bytes = ownedBytes(batch);
          dataPort.postMessage(bytes, [bytes.buffer]);
        },
        { loggerFor: (actor) => shardLogs.loggerFor(actor), burnCpu: spinFor },
      );
      dataPort.on("message", (bytes: Uint8Array) => ready().deliver(decodeUnchecked(bytes) as DeliveryBatch));
      if (init.epochMs !== null) shard.begin(new VirtualClock(init.epochMs, timeScale));
    },
    begin(epochMs) {
      ready().begin(new VirtualClock(epochMs, timeScale));
    },
    adopt: (actor) => ready().adopt(actor),
    control: (event) => ready().control(event),
    snapshot: () => ready().snapshot(),
    stop: () => ready().stop(),
    flushLogs() {
      logs?.flush();
      saveCache();
    },
  };

  expose(control, comlinkEndpoint(controlPort));
}
