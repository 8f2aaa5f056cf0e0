import { originalIndices, withRewindsAsResets } from "../analysis/rewinds-as-resets.js";
import { type Checker, ViolationList } from "./checker.js";
import { duplicatesAttributed } from "./duplicates-attributed.js";

/**
 * duplicates-attributed for consume-process-produce applications: records
 * delivered again after the consumer was sought back to the start of a
 * rolled-back batch (`member.batch` with `rewoundTo`) are explained, like
 * records re-read after a reset; any other duplicate delivery still needs a
 * rebalance, a failed commit, a zombie or a reset.
 */
export const duplicatesAttributedTransactional: Checker = {
  name: "duplicates-attributed-transactional",
  description: "every duplicate delivery is explained by a rebalance, a failed commit, a reset or a rolled-back batch",
  check(events, spec) {
    const augmented = withRewindsAsResets(events);
    const violations = new ViolationList();
    for (const v of duplicatesAttributed.check(augmented.events, spec).violations) {
      violations.add(v.t, v.message, originalIndices(augmented, v.events));
    }
    return violations.result();
  },
};
