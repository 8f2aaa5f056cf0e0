import { parentPort } from "node:worker_threads";
import { decodeUnchecked, encodeValue } from "@kcsim/protocol";
import { DEFAULT_REGISTRY } from "../../actors/registry.js";
import type { ShardInit, ShardReply, ShardWindow } from "./shard-protocol.js";
import { ShardRuntime } from "./shard-runtime.js";

/** A lockstep shard worker: a thin shell around ShardRuntime (tested in one thread). */
if (parentPort === null) throw new Error("worker-entry must run in a worker thread");
const port = parentPort;
let runtime: ShardRuntime | null = null;

function reply(message: ShardReply): void {
  const bytes = encodeValue(message);
  // A private, exact-size buffer to transfer (encodeValue may return a view into a shared pool).
  const owned = new Uint8Array(bytes.length);
  owned.set(bytes);
  port.postMessage(owned, [owned.buffer]);
}

port.on("message", (data: Uint8Array) => {
  const message = decodeUnchecked(data) as ShardInit | ShardWindow;
  if (message.type === "init") {
    runtime = new ShardRuntime(message, DEFAULT_REGISTRY);
    reply({ type: "ready", nextTimerDue: runtime.nextTimerDue() });
  } else if (runtime !== null) {
    reply(runtime.runWindow(message));
  }
});
