import type { OffsetCommitObservation, TransactionalOffsetObservation } from "@kcsim/coordinator";
import { getOrCreate } from "@kcsim/protocol";
import { knownObservation } from "../analysis/observations.js";
import { streamingChecker, ViolationList } from "./checker.js";

/**
 * DESIGN.md rule 3: no offset commit from a fenced, expired or stale member
 * is accepted. Judged against the coordinator's own member records: an
 * accepted commit must come from a member the coordinator has (not removed
 * since it last joined) at exactly its current epoch or generation.
 * Commits with no member (epoch < 0, the simple-group and admin path) are
 * out of scope. A transactional commit (TxnOffsetCommit, KIP-447) is judged
 * when the coordinator accepted it into the transaction (`gc.txn-offset`
 * pending), not when the COMMIT marker later makes it visible: by then the
 * member may rightly have moved on to a newer epoch.
 */
export const noZombieCommits = streamingChecker({
  name: "no-zombie-commits",
  description: "no offset commit from a fenced, expired or stale member is accepted",
  judge() {
    const violations = new ViolationList();
    /** group -> member -> current epoch, or null when removed (no key string per commit) */
    const epochs = new Map<string, Map<string, number | null>>();
    const epochsOf = (groupId: string) => getOrCreate(epochs, groupId, () => new Map<string, number | null>());
    return {
      reads: ["gc.member", "gc.member-removed", "gc.offset-commit", "gc.txn-offset"],
      accept(event, index) {
        if (event.ev !== "obs") return;
        // One read of the observation's type, then a switch (every accepted commit of a run comes through here).
        const o = knownObservation(event);
        let commit: OffsetCommitObservation | TransactionalOffsetObservation;
        switch (o.type) {
          case "gc.member":
            epochsOf(o.groupId).set(o.memberId, o.memberEpoch);
            return;
          case "gc.member-removed":
            epochsOf(o.groupId).set(o.memberId, null);
            return;
          case "gc.offset-commit":
            if (o.transactional || !acceptedAny(o)) return;
            commit = o;
            break;
          case "gc.txn-offset":
            if (o.outcome !== "pending" || o.errorCode !== 0) return;
            commit = o;
            break;
          default:
            return;
        }
        if (commit.epoch < 0) return;
        const current = epochs.get(commit.groupId)?.get(commit.memberId);
        if (current === undefined || current === null) {
          violations.add(
            event.t,
            `group ${commit.groupId}: accepted a commit of ${acceptedPartitions(commit)} from ${commit.memberId}, which is not a member`,
            [index],
          );
        } else if (current !== commit.epoch) {
          violations.add(
            event.t,
            `group ${commit.groupId}: accepted a commit of ${acceptedPartitions(commit)} from ${commit.memberId} at epoch ${commit.epoch}; its epoch is ${current}`,
            [index],
          );
        }
      },
      finish: () => violations.result(),
    };
  },
});

/** Whether a commit had any partition accepted (most have all: every commit of a run comes through here). */
function acceptedAny(commit: OffsetCommitObservation): boolean {
  for (const topic of commit.topics) for (const errorCode of topic.errorCodes) if (errorCode === 0) return true;
  return false;
}

/** How many accepted partitions a violation names before it counts the rest. */
const NAMED_PARTITIONS = 4;

/** The partitions a commit had accepted, for a violation: "t-0, t-1, t-2, t-3 and 3 more". */
function acceptedPartitions(commit: OffsetCommitObservation | TransactionalOffsetObservation): string {
  if (commit.type === "gc.txn-offset") return `${commit.topic}-${commit.partition}`;
  const names: string[] = [];
  let count = 0;
  for (const topic of commit.topics)
    for (let i = 0; i < topic.partitions.length; i++) {
      if (topic.errorCodes[i] !== 0) continue;
      if (count++ < NAMED_PARTITIONS) names.push(`${topic.topic}-${topic.partitions[i]}`);
    }
  return count > NAMED_PARTITIONS ? `${names.join(", ")} and ${count - NAMED_PARTITIONS} more` : names.join(", ");
}
