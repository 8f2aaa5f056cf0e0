import type { ActorId } from "@kcsim/protocol";
import type { SimulationCore } from "../../kernel/simulation-core.js";
import type { Effect } from "../lockstep/shard-protocol.js";
import type { ActorMirror } from "./actor-mirror.js";

/**
 * Applies one effect reported by a worker to the main thread's core (the
 * router, the queue and the history) and to the actor's mirror, exactly as
 * the inline host applies it when the cell produces it.
 */
export function applyEffect(core: SimulationCore, mirrors: ReadonlyMap<ActorId, ActorMirror>, effect: Effect): void {
  switch (effect[0]) {
    case "send":
      mirrors.get(effect[1])?.sent(effect[3]);
      core.send(effect[1], effect[2], effect[3], effect[4], effect[5], effect[6] as Uint8Array, effect[7], effect[8]);
      return;
    case "conn":
      core.connection(effect[1], effect[2], effect[3]);
      return;
    case "obs":
      core.observe(effect[1], effect[2], effect[3]);
      return;
    case "append":
      mirrors.get(effect[1])?.log.appendEncoded(effect[2]);
      return;
    case "life":
      mirrors.get(effect[1])?.lifecycle(effect[3], effect[4]);
      core.lifecycle(effect[1], effect[2], effect[3], effect[4]);
      return;
    case "error":
      core.actorError(effect[1], effect[2], effect[3], effect[4], effect[5]);
      return;
    case "reject":
      core.rejected(effect[1], effect[2], effect[3], effect[4], effect[5]);
      return;
    case "lost":
      core.lost(effect[1], effect[2], effect[3], effect[4], effect[5]);
      return;
  }
}
