import { acknowledgedRecords, isReadCommittedVisible } from "../analysis/acknowledged-records.js";
import { analyseConsumption } from "../analysis/consumption.js";
import { withRewindsAsResets } from "../analysis/rewinds-as-resets.js";
import { type Checker, ViolationList } from "./checker.js";

/**
 * contiguous-offsets for runs with transactions and consume-process-produce
 * applications. Two gaps are expected there: a consumer skips offsets that
 * hold no record it may see (transaction markers, records of aborted or
 * still open transactions), and it is sought back to the first offsets of
 * a batch it rolled back (`member.batch` with `rewoundTo`). So a skip is a
 * violation only when it jumps over an acknowledged record outside an
 * aborted transaction, and a rewind only when no reset or rollback
 * explains it; records of a partition the member does not own are a
 * violation too.
 */
export const contiguousOffsetsTransactional: Checker = {
  name: "contiguous-offsets-transactional",
  description: "offsets handed to the application are contiguous within a tenure, apart from markers, aborted records and rollbacks",
  check(events) {
    const violations = new ViolationList();
    const augmented = withRewindsAsResets(events);
    const report = analyseConsumption(augmented.events);
    const log = acknowledgedRecords(events);
    const original = (index: number) => augmented.originalIndex[index] ?? index;
    for (const b of report.breaks) {
      if (b.cause !== null) continue;
      if (b.kind === "skip") {
        const records = log.get(b.partition);
        let skippedVisible: number | null = null;
        for (let offset = b.expected; offset < b.got && skippedVisible === null; offset++) {
          const record = records?.get(offset);
          if (record !== undefined && isReadCommittedVisible(record)) skippedVisible = offset;
        }
        if (skippedVisible === null) continue;
        violations.add(
          b.t,
          `${b.actor} ${b.partition}: skip from offset ${b.expected} to ${b.got} over committed record ${skippedVisible}`,
          [original(b.index)],
        );
        continue;
      }
      violations.add(
        b.t,
        `${b.actor} ${b.partition}: rewind from offset ${b.expected} to ${b.got} with no reset or rollback to explain it`,
        [original(b.index)],
      );
    }
    for (const u of report.unowned) {
      violations.add(u.t, `${u.actor} was handed records of ${u.partition}, which it did not own`, [original(u.index)]);
    }
    violations.items.sort((a, b) => a.t - b.t);
    return violations.result();
  },
};
