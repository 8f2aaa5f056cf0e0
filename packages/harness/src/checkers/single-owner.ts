import { tpKey } from "@kcsim/protocol";
import { sharedLostAssignmentAnswers } from "../analysis/lost-assignment-answers.js";
import { observationOf } from "../analysis/observations.js";
import { OWNERSHIP_EVENTS, sharedOwnership } from "../analysis/ownership-timeline.js";
import { streamingChecker, ViolationList } from "./checker.js";
import { HeldPartitionStories } from "./held-partition-stories.js";

/** A second live owner seen at the current instant, reported once it outlasts the instant or is acted on. */
interface Conflict {
  readonly t: number;
  readonly index: number;
  readonly partition: string;
  readonly owners: readonly string[];
}

/**
 * DESIGN.md rule 2: among live, unfenced members, no partition has two
 * owners at once. Ownership is the application's (`member.owned`); a
 * member the coordinator fenced stops counting until it rejoins, a crashed
 * one at once, and a classic member a join phase left behind (a static
 * member still at an older generation, which Kafka keeps in the group and
 * fences with ILLEGAL_GENERATION) until its client holds the new
 * generation (see OwnershipTimeline).
 *
 * "At once" means for some virtual time, or long enough to act: a conflict
 * is reported when it is still there after the last event of the instant
 * it began in, or when one of its owners is handed records of the
 * partition (`member.records`) while it lasts. A conflict that begins and
 * ends within one instant, without records, is no double ownership: a
 * KIP-848 member whose reconciliation was held up (its application stuck
 * in a long commitTransaction, say) completes it late with partitions the
 * coordinator has since given to another member (it never acknowledged
 * them), and revokes them again in the same step, before it could fetch
 * a record of them (Kafka's AbstractMembershipManager does the same: a
 * newer target does not abort a reconciliation in progress).
 *
 * A violation tells why an owner still held the partition when the history
 * shows one of the known ways (see HeldPartitionStories), and cites the
 * events of that story, so a hunt files it as a finding of its own.
 */
export const singleOwner = streamingChecker({
  name: "single-owner",
  description: "no partition has two live, unfenced owners at once",
  judge(pass) {
    const violations = new ViolationList();
    const timeline = pass.shared(sharedOwnership);
    const lostAnswers = pass.shared(sharedLostAssignmentAnswers);
    const stories = new HeldPartitionStories(lostAnswers);
    const reported = new Set<string>();
    const pending = new Map<string, Conflict>();
    const keyOf = (partition: string, owners: readonly string[]) => `${partition}:${[...owners].sort().join(",")}`;
    const report = (key: string, conflict: Conflict) => {
      pending.delete(key);
      if (reported.has(key)) return;
      reported.add(key);
      const message = `${conflict.partition} owned by ${conflict.owners.join(" and ")} at once`;
      const story = stories.storyOf(conflict.partition, conflict.owners);
      if (story === null) violations.add(conflict.t, message, [conflict.index]);
      else
        violations.add(
          conflict.t,
          `${message}: ${story.text}`,
          [...new Set([...story.cited, conflict.index])].sort((a, b) => a - b),
        );
    };
    /** The instant is over: the conflicts whose owners all still own the partition are real. */
    const settle = () => {
      if (pending.size === 0) return;
      for (const [key, conflict] of pending) {
        const owners = timeline.ownersOf(conflict.partition);
        if (conflict.owners.every((owner) => owners.includes(owner))) report(key, conflict);
      }
      pending.clear();
    };
    return {
      reads: [...OWNERSHIP_EVENTS, "member.records"],
      instantOver: settle,
      accept(event, index) {
        const records = observationOf(event, "member.records");
        if (records === undefined) {
          stories.accept(event, index, timeline);
          // The timeline has just applied this event: its conflicts are the ones it began.
          for (const conflict of timeline.conflicts) {
            const key = keyOf(conflict.partition, conflict.owners);
            if (!reported.has(key) && !pending.has(key)) pending.set(key, { t: event.t, index, ...conflict });
          }
          return;
        }
        if (pending.size === 0 || event.ev !== "obs") return;
        for (const range of records.ranges) {
          const partition = tpKey(range.topic, range.partition);
          for (const [key, conflict] of pending) {
            if (conflict.partition === partition && conflict.owners.includes(event.actor)) report(key, conflict);
          }
        }
      },
      finish() {
        // The run's last instant ends here, with no instantOver: its answers are paired before its conflicts are told.
        lostAnswers.settleInstant();
        settle();
        return violations.result();
      },
    };
  },
});
