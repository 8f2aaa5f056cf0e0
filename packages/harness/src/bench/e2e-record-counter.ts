import { observationOf } from "../analysis/observations.js";
import type { HistoryEvent } from "../history/history-event.js";

/**
 * Counts the e2e bench's records from the history's events as they are
 * recorded (the History's follower): records acknowledged (`producer.ack`
 * with no error) and records handed to applications (`member.records`, one
 * observation per poll with a range per partition, history format 3). It
 * reads the events themselves, so no JSON line is made per event just to be
 * counted (that cost was the bench's, not the simulator's).
 */
export class E2eRecordCounter {
  produced = 0;
  consumed = 0;

  accept(event: HistoryEvent): void {
    if (event.ev !== "obs") return;
    const ack = observationOf(event, "producer.ack");
    if (ack !== undefined) {
      if (ack.errorCode === 0) this.produced += ack.count;
      return;
    }
    const records = observationOf(event, "member.records");
    if (records !== undefined) for (const range of records.ranges) this.consumed += range.count;
  }
}
