import { sinkDuplicates } from "../analysis/sink-duplicates.js";
import { type Checker, ViolationList } from "./checker.js";

/**
 * Every duplicate row of an external store (see sink-no-duplicates) is
 * explained by the re-delivery that wrote the record again: a crash
 * between the write and the commit, a fenced member, a rebalance, a failed
 * commit, a rolled-back batch, a reset. One without a cause is a violation.
 */
export const sinkDuplicatesAttributed: Checker = {
  name: "sink-duplicates-attributed",
  description: "every duplicate row of an application's external store is explained by a re-delivery",
  check(events, spec) {
    const violations = new ViolationList();
    for (const duplicate of sinkDuplicates(events, spec)) {
      if (duplicate.cause !== null) continue;
      violations.add(
        duplicate.rows[1]?.t ?? 0,
        `${duplicate.groupId}: ${duplicate.mode} sink holds ${duplicate.rows.length} rows of ${duplicate.input} and no re-delivery explains them`,
        duplicate.rows.map((r) => r.index),
      );
    }
    return violations.result();
  },
};
