import type { HistoryEvent } from "../history/history-event.js";
import type { EventFollower, SharedAnalysis } from "./history-pass.js";
import { observationOf } from "./observations.js";
import { type OwnershipTimeline, sharedOwnership } from "./ownership-timeline.js";

/**
 * Which consumers have stopped for good, as far as their group goes: a
 * process that is down (crashed or stopped, until it starts again), a
 * consumer stopped by a fatal error (`member.fatal`: its application's
 * poll() throws and it stops polling), and one told to close (`command`
 * close: its application calls close() once its current call returns, and
 * a closed KafkaConsumer never joins again). A new process of the member
 * starts afresh.
 *
 * A static KIP-848 member restarted before its old incarnation's session
 * ran out ends this way: UNRELEASED_INSTANCE_ID (GroupMetadataManager's
 * throwIfInstanceIdIsUnreleased) is fatal to the client
 * (ConsumerHeartbeatRequestManager.handleSpecificError). A group whose
 * members have all stopped can neither converge nor consume again, and the
 * rules that wait for it to (`converges`, `no-loss`) say so instead of
 * judging it.
 *
 * Whether a process is up is the shared ownership timeline's to say
 * (OwnershipTimeline.isAlive): this analysis keeps only what stops a
 * running consumer.
 */
export class ConsumerStops implements EventFollower {
  readonly reads = ["life", "member.fatal"];
  readonly #timeline: OwnershipTimeline;
  readonly #fatal = new Map<string, string>();
  readonly #closed = new Set<string>();

  constructor(timeline: OwnershipTimeline) {
    this.#timeline = timeline;
  }

  accept(event: HistoryEvent): void {
    if (event.ev === "life") {
      if (event.what === "start" || event.what === "restart") {
        this.#fatal.delete(event.actor);
        this.#closed.delete(event.actor);
      } else if (event.what === "command" && event.detail === "close") this.#closed.add(event.actor);
      return;
    }
    const fatal = observationOf(event, "member.fatal");
    if (fatal !== undefined && event.ev === "obs") this.#fatal.set(event.actor, fatal.error);
  }

  /** The members whose process is running (started and not crashed or stopped since) and was not told to close. */
  stillRunning(members: readonly string[]): string[] {
    return members.filter((m) => this.#timeline.isAlive(m) && !this.#closed.has(m));
  }

  /** The error that stopped its consumer for good, if one did (until a new process of it starts). */
  fatalError(actor: string): string | undefined {
    return this.#fatal.get(actor);
  }

  /** Whether it was told to close (until a new process of it starts). */
  isClosed(actor: string): boolean {
    return this.#closed.has(actor);
  }

  /**
   * Why none of these members can consume any more, or null when one can: each is down or told to close, and those
   * left were stopped by a fatal error.
   */
  noneCanConsume(groupId: string, members: readonly string[]): string | null {
    const left = this.stillRunning(members);
    if (left.length === 0) return `group ${groupId} has no member left running (each is down or was told to close)`;
    if (!left.every((m) => this.#fatal.has(m))) return null;
    return `group ${groupId} has no live member but consumers stopped by a fatal error (${left.map((m) => `${m}: ${this.#fatal.get(m)}`).join(", ")})`;
  }
}

export const sharedConsumerStops: SharedAnalysis<ConsumerStops> = (pass) => new ConsumerStops(pass.shared(sharedOwnership));
