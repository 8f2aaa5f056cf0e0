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
            if (o.transactional) return;
            commit = o;
            break;
          case "gc.txn-offset":
            if (o.outcome !== "pending") return;
            commit = o;
            break;
          default:
            return;
        }
        if (commit.errorCode !== 0 || commit.epoch < 0) return;
        const current = epochs.get(commit.groupId)?.get(commit.memberId);
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
