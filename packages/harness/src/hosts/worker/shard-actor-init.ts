import type { ActorId } from "@kcsim/protocol";
import type { CellCarry } from "../../kernel/cell-carry.js";
import type { SimulationCore } from "../../kernel/simulation-core.js";
import type { ActorSpec } from "../../kernel/simulation-spec.js";
import type { ShardActorInit } from "../lockstep/shard-protocol.js";
import type { ActorMirror } from "./actor-mirror.js";

/**
 * What a shard needs to build an actor's cell: its spec (the run's, or one of
 * those `added` while it ran), its origin rank, its durable log so far and
 * (rebuilt) its carry.
 */
export function shardActorInit(
  core: SimulationCore,
  mirrors: ReadonlyMap<ActorId, ActorMirror>,
  id: ActorId,
  carry?: CellCarry,
  added: readonly ActorSpec[] = [],
): ShardActorInit {
  const actor = core.spec.actors.find((a) => a.id === id) ?? added.find((a) => a.id === id);
  if (actor === undefined) throw new Error(`no actor '${id}'`);
  return {
    id,
    rank: core.ranks.rank(id),
    kind: actor.kind,
    config: actor.config,
    log: mirrors.get(id)?.log.encoded() ?? [],
    ...(carry !== undefined ? { carry } : {}),
  };
}
