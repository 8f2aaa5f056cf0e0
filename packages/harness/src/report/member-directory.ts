import type { HistoryEvent } from "../history/history-event.js";

/**
 * Which member actor holds which Kafka member id, learnt from the members'
 * own observations (every member.* observation names its memberId). The
 * coordinator's observations name only member ids; this maps them back to
 * the actor rows of the report. A restarted member gets a new id; old ids
 * keep pointing at the actor that held them.
 */
export class MemberDirectory {
  readonly #actorOf = new Map<string, string>();
  readonly #groupOf = new Map<string, string>();

  accept(event: HistoryEvent): void {
    if (event.ev !== "obs" || !event.o.type.startsWith("member.")) return;
    const { memberId, groupId } = event.o;
    if (typeof memberId === "string" && memberId !== "" && !this.#actorOf.has(memberId)) this.#actorOf.set(memberId, event.actor);
    if (typeof groupId === "string" && !this.#groupOf.has(event.actor)) this.#groupOf.set(event.actor, groupId);
  }

  actorOf(memberId: string): string | null {
    return this.#actorOf.get(memberId) ?? null;
  }

  /** The group a member actor reported itself in, if any. */
  groupOf(actor: string): string | null {
    return this.#groupOf.get(actor) ?? null;
  }

  /** Member actors seen, in the order they first reported a group. */
  actors(): string[] {
    return [...this.#groupOf.keys()];
  }
}
