import { tpKey } from "@kcsim/protocol";
import { acknowledgedRecords, isReadCommittedVisible } from "../analysis/acknowledged-records.js";
import { observationOf } from "../analysis/observations.js";
import { type Checker, notJudged, ViolationList } from "./checker.js";
import { noLoss } from "./no-loss.js";

/**
 * no-loss for runs with transactions: every acknowledged record a
 * read_committed consumer can see (written outside a transaction, or in
 * one its partition marks committed) is consumed at least once after the
 * faults heal. Records of aborted transactions, and of transactions still
 * open at the end, are acknowledged by their leaders but never delivered:
 * they are left out. Judged by no-loss over the history without those
 * acknowledgements (and, like it, not judged where no consumer is left to
 * drain a partition).
 */
export const noLossReadCommitted: Checker = {
  name: "no-loss-read-committed",
  description: "every acknowledged record outside an aborted transaction is consumed at least once after the faults heal",
  check(events, spec) {
    const log = acknowledgedRecords(events);
    const kept: number[] = [];
    events.forEach((event, index) => {
      const ack = observationOf(event, "producer.ack");
      if (ack !== undefined && ack.errorCode === 0 && ack.baseOffset >= 0 && ack.transactionalId !== null) {
        // A batch belongs to one transaction: its first record's fate is the batch's.
        const record = log.get(tpKey(ack.topic, ack.partition))?.get(ack.baseOffset);
        if (record !== undefined && !isReadCommittedVisible(record)) return;
      }
      kept.push(index);
    });
    const judged = noLoss.check(
      kept.map((index) => events[index] as (typeof events)[number]),
      spec,
    );
    const violations = new ViolationList();
    for (const violation of judged.violations)
      violations.add(
        violation.t,
        violation.message,
        violation.events.map((i) => kept[i] ?? i),
      );
    const result = violations.result();
    return result.ok && judged.notJudged !== undefined ? notJudged(judged.notJudged) : result;
  },
};
