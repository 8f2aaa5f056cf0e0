import { getOrCreate, tpKey } from "@kcsim/protocol";
import { observationOf } from "../analysis/observations.js";
import { type Checker, ViolationList } from "./checker.js";
import { drainCutoffUs } from "./drain-time.js";

/**
 * DESIGN.md rule 5 (at least once): every record a producer saw
 * acknowledged is consumed at least once, once faults heal and the group
 * drains. A record is lost when a leader later writes a different batch at
 * its offset (an acknowledged append overwritten after a failover), or when
 * no consumer ever got its offset (e.g. auto.offset.reset=latest skipping
 * data written before the group started). Records acknowledged within the
 * last minute of the run are not required to have been consumed.
 */
export const noLoss: Checker = {
  name: "no-loss",
  description: "every acknowledged record is consumed at least once after the faults heal",
  check(events, spec) {
    const violations = new ViolationList();
    const cutoff = drainCutoffUs(spec);
    /** tp -> offset -> leader epoch of the append the producer saw acknowledged */
    const acked = new Map<string, Map<number, { epoch: number; t: number; index: number }>>();
    /** tp -> offset -> epoch of the latest append at that offset */
    const appendedEpoch = new Map<string, Map<number, number>>();
    /** tp -> consumed offset ranges */
    const consumed = new Map<string, [number, number][]>();
    const overwritten = new Map<string, { offset: number; t: number; index: number }>();
    events.forEach((event, index) => {
      const append = observationOf(event, "broker.append");
      if (append !== undefined) {
        const key = tpKey(append.topic, append.partition);
        const epochs = getOrCreate(appendedEpoch, key, () => new Map<number, number>());
        const ackedHere = acked.get(key);
        for (let offset = append.baseOffset; offset <= append.lastOffset; offset++) {
          const ack = ackedHere?.get(offset);
          if (ack !== undefined && ack.epoch !== append.leaderEpoch && !overwritten.has(`${key}@${offset}`)) {
            overwritten.set(`${key}@${offset}`, { offset, t: event.t, index });
          }
          epochs.set(offset, append.leaderEpoch);
        }
        return;
      }
      const ack = observationOf(event, "producer.ack");
      if (ack !== undefined && ack.errorCode === 0 && ack.baseOffset >= 0) {
        const key = tpKey(ack.topic, ack.partition);
        const epochs = appendedEpoch.get(key);
        const mine = getOrCreate(acked, key, () => new Map());
        for (let offset = ack.baseOffset; offset <= ack.lastOffset; offset++) {
          mine.set(offset, { epoch: epochs?.get(offset) ?? -1, t: event.t, index });
        }
        return;
      }
      const records = observationOf(event, "member.records");
      if (records !== undefined)
        getOrCreate(consumed, tpKey(records.topic, records.partition), () => []).push([records.firstOffset, records.lastOffset]);
    });
    for (const [key, loss] of [...overwritten].sort((a, b) => a[1].t - b[1].t)) {
      violations.add(loss.t, `acknowledged record ${key.replace("@", " offset ")} was overwritten by another leader: lost`, [loss.index]);
    }
    for (const [tp, offsets] of acked) {
      const ranges = (consumed.get(tp) ?? []).sort((a, b) => a[0] - b[0]);
      const unseen: number[] = [];
      let firstIndex = -1;
      for (const [offset, ack] of offsets) {
        if (ack.t > cutoff || overwritten.has(`${tp}@${offset}`)) continue;
        if (!ranges.some(([from, to]) => from <= offset && offset <= to)) {
          unseen.push(offset);
          if (firstIndex < 0) firstIndex = ack.index;
        }
      }
      if (unseen.length > 0) {
        unseen.sort((a, b) => a - b);
        const shown = unseen.length > 5 ? `${unseen.slice(0, 5).join(", ")}, ... (${unseen.length} in all)` : unseen.join(", ");
        violations.add(spec.durationUs, `${tp}: acknowledged records never consumed: offsets ${shown}`, [firstIndex]);
      }
    }
    return violations.result();
  },
};
