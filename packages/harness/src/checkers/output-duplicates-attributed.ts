import { accountResults } from "../analysis/result-accounting.js";
import { type Checker, ViolationList } from "./checker.js";

/**
 * Every duplicate result in a consume-process-produce group's output (an
 * input record whose result the output holds more than once: see
 * exactly-once-output) is explained by the re-delivery that made the
 * application process the record again: a crash before the commit, a
 * fenced member, a rebalance, a failed commit, a rolled-back batch, a
 * reset. A duplicate without one (a record processed once but produced
 * twice) is a violation.
 */
export const outputDuplicatesAttributed: Checker = {
  name: "output-duplicates-attributed",
  description: "every duplicate result in a consume-process-produce output is explained by a re-delivery",
  check(events, spec) {
    const violations = new ViolationList();
    for (const account of accountResults(events, spec)) {
      for (const duplicate of account.duplicates) {
        if (duplicate.cause !== null) continue;
        violations.add(
          duplicate.copies[1]?.t ?? 0,
          `${account.groupId}: ${duplicate.input} has ${duplicate.copies.length} results in ${account.outputTopic} and no re-delivery explains them`,
          duplicate.copies.map((c) => c.index),
        );
      }
    }
    return violations.result();
  },
};
