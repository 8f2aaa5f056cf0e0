import { decodeUnchecked } from "@kcsim/protocol";
import { ownedBytes } from "../worker/owned-bytes.js";
import type { WindowReply, WindowRequest } from "./shard-protocol.js";
import type { ShardRuntime } from "./shard-runtime.js";
import { eventOf } from "./shard-runtime.js";

/**
 * One window through a shard as bytes in, bytes out: what a lockstep worker
 * does for every window, whatever the transport. Pure, so it is tested in
 * one thread.
 */
export function answerWindow(runtime: ShardRuntime, bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const [limit, tuples, carryOf, reach, lookahead] = decodeUnchecked(bytes) as WindowRequest;
  const runOn = reach !== undefined && lookahead !== undefined ? { reach, lookahead } : null;
  const outcome = runtime.runWindow(limit, tuples.map(eventOf), carryOf, runOn);
  const reply: WindowReply = [outcome.groups, outcome.nextDue, outcome.carries, outcome.timersRun, outcome.reached];
  return ownedBytes(reply);
}

export function encodeWindow(request: WindowRequest): Uint8Array<ArrayBuffer> {
  return ownedBytes(request);
}

export function decodeReply(bytes: Uint8Array): WindowReply {
  return decodeUnchecked(bytes) as WindowReply;
}
