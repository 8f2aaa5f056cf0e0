import { observationOf } from "../analysis/observations.js";
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
    /** group/member -> current epoch, or null when removed */
    const epochs = new Map<string, number | null>();
    return {
      reads: ["gc.member", "gc.member-removed", "gc.offset-commit", "gc.txn-offset"],
      accept(event, index) {
        const member = observationOf(event, "gc.member");
        if (member !== undefined) {
          epochs.set(`${member.groupId}/${member.memberId}`, member.memberEpoch);
          return;
        }
        const removed = observationOf(event, "gc.member-removed");
        if (removed !== undefined) {
          epochs.set(`${removed.groupId}/${removed.memberId}`, null);
          return;
        }
        const offsetCommit = observationOf(event, "gc.offset-commit");
        const txnCommit = observationOf(event, "gc.txn-offset");
        const commit =
          offsetCommit !== undefined && !offsetCommit.transactional
            ? offsetCommit
            : txnCommit?.outcome === "pending"
              ? txnCommit
              : undefined;
        if (commit === undefined || commit.errorCode !== 0 || commit.epoch < 0) return;
        const key = `${commit.groupId}/${commit.memberId}`;
        const current = epochs.get(key);
        if (current === undefined || current === null) {
          violations.add(
            event.t,
            `group ${commit.groupId}: accepted a commit of ${commit.topic}-${commit.partition} from ${commit.memberId}, which is not a member`,
            [index],
          );
        } else if (current !== commit.epoch) {
          violations.add(
            event.t,
            `group ${commit.groupId}: accepted a commit of ${commit.topic}-${commit.partition} from ${commit.memberId} at epoch ${commit.epoch}; its epoch is ${current}`,
            [index],
          );
        }
      },
      finish: () => violations.result(),
    };
  },
});
