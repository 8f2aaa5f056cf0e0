import type { ActorId } from "@kcsim/protocol";
import { HARNESS_ORIGINS } from "./event.js";

/**
 * The integer stand-ins of the run's event origins. Every origin a run can
 * have is known from its spec (its actors and the harness origins), so all
 * of them are sorted once as strings and each gets its place in that order:
 * comparing two ranks gives exactly what comparing the two strings gave,
 * and the event queues compare integers. Every host builds the same table
 * from the same spec, so keys mean the same in every thread.
 */
export class OriginRanks {
  readonly #ranks = new Map<string, number>();

  constructor(actors: Iterable<ActorId>) {
    // Array.prototype.sort compares UTF-16 code units, as `<` on strings does.
    const origins = [...new Set([...HARNESS_ORIGINS, ...actors])].sort();
    for (const [rank, origin] of origins.entries()) this.#ranks.set(origin, rank);
  }

  static of(spec: { readonly actors: readonly { readonly id: ActorId }[] }): OriginRanks {
    return new OriginRanks(spec.actors.map((actor) => actor.id));
  }

  /**
   * Ranks an origin that joined while the run was going (kcsim serve: a
   * client that connected) after every other. Only the realtime host adds
   * origins, and the wall clock orders its simultaneous events anyway; its
   * replay ranks the recorded spec, which lists the added actors.
   */
  add(origin: string): number {
    const known = this.#ranks.get(origin);
    if (known !== undefined) return known;
    const rank = this.#ranks.size;
    this.#ranks.set(origin, rank);
    return rank;
  }

  /** The rank of an origin of this run, or -1 for one it does not have (a message to no such actor). */
  find(origin: string): number {
    return this.#ranks.get(origin) ?? -1;
  }

  /** The rank of an origin of this run; throws for an origin the run cannot have (a kcsim bug). */
  rank(origin: string): number {
    const rank = this.#ranks.get(origin);
    if (rank === undefined) throw new Error(`event origin '${origin}' is neither an actor of this run nor a harness origin`);
    return rank;
  }
}
