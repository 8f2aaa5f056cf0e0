import { getOrCreate, tpKey } from "@kcsim/protocol";
import { sharedConsumerStops } from "../analysis/consumer-stops.js";
import { type GroupTopology, groupTopologies } from "../analysis/group-topology.js";
import { observationOf } from "../analysis/observations.js";
import { PartitionTable } from "../analysis/partition-table.js";
import type { HistoryEvent } from "../history/history-event.js";
import { formatSeconds } from "../report/time-format.js";
import { notJudged, streamingChecker, ViolationList } from "./checker.js";
import { drainCutoffUs } from "./drain-time.js";
import { listedPartitions } from "./listed-partitions.js";

/** Adds a consumed range, extending the last one when it continues or overlaps it (polls mostly do): the same cover, fewer ranges. */
function addRange(ranges: [number, number][], from: number, to: number): void {
  const last = ranges[ranges.length - 1];
  if (last !== undefined && last[0] <= from && from <= last[1] + 1) last[1] = Math.max(last[1], to);
  else ranges.push([from, to]);
}

/**
 * DESIGN.md rule 5 (at least once): every record a producer saw
 * acknowledged is consumed at least once, once faults heal and the group
 * drains. A record is lost when a newer leader (a higher leader epoch than
 * the append that was acknowledged) later writes a different batch at its
 * offset (an acknowledged append overwritten after a failover), or when
 * no consumer ever got its offset (e.g. auto.offset.reset=latest skipping
 * data written before the group started). Records acknowledged within the
 * last minute of the run are not required to have been consumed.
 *
 * A deposed leader that has not heard of its successor yet (cut off by a
 * partition, its produce requests delivered once it heals) may still
 * append at an older epoch; those appends never reach the committed log
 * (it truncates them when it learns it is a follower), so they overwrite
 * nothing. The acknowledged append is the one of the broker whose answer
 * acknowledged it.
 *
 * A real client's records (kcsim serve) are counted when a Fetch answer
 * brings them for a partition the client owns; what an answer brought for a
 * partition it did not own is reported apart (member.records-dropped), and a
 * violation names the first such fetch of records never consumed: a client
 * that handed them to its application anyway (KafkaJS back on partitions it
 * gave up, say) did consume them, which the wire cannot show.
 *
 * A partition whose every consuming group has stopped for good by the run's
 * end (each member down, told to close, or stopped by a fatal error: see
 * ConsumerStops) cannot drain: the records past the last one its consumers
 * got are not judged (the reason names the group), while any record they
 * passed over, below one they consumed, is still a loss.
 */
export const noLoss = streamingChecker({
  name: "no-loss",
  description: "every acknowledged record is consumed at least once after the faults heal",
  judge(pass) {
    const spec = pass.spec;
    const cutoff = drainCutoffUs(spec);
    const stops = pass.shared(sharedConsumerStops);
    /** tp -> offset -> leader epoch of the append the producer saw acknowledged */
    const acked = new Map<string, Map<number, { epoch: number; t: number; index: number }>>();
    /**
     * tp -> broker -> epoch of that broker's latest append at each offset, indexed by offset. Arrays, not maps: a
     * log's offsets run densely from its start, and a map entry per record appended at each replica was the most
     * expensive part of judging a run with a data path.
     */
    const appendedEpoch = new Map<string, Map<string, number[]>>();
    /** tp -> epoch of the latest append at each offset, whoever made it (acknowledgements that name no broker), indexed by offset */
    const latestEpoch = new Map<string, number[]>();
    /** tp -> consumed offset ranges */
    const consumed = new Map<string, [number, number][]>();
    /** The same ranges by topic and partition: no key string per range of a poll. */
    const consumedOf = new PartitionTable<[number, number][]>((topic, partition) =>
      getOrCreate(consumed, tpKey(topic, partition), () => []),
    );
    const overwritten = new Map<string, { offset: number; t: number; index: number }>();
    /** tp -> fetches that brought records of it to a member that did not own it (real clients only) */
    const dropped = new Map<string, { actor: string; t: number; first: number; last: number }[]>();
    const accept = (event: HistoryEvent, index: number) => {
      const append = observationOf(event, "broker.append");
      if (append !== undefined) {
        const key = tpKey(append.topic, append.partition);
        const broker = event.ev === "obs" ? event.actor : "";
        const byBroker = getOrCreate(appendedEpoch, key, () => new Map<string, number[]>());
        const mine = getOrCreate(byBroker, broker, (): number[] => []);
        const latest = getOrCreate(latestEpoch, key, (): number[] => []);
        const ackedHere = acked.get(key);
        for (let offset = append.baseOffset; offset <= append.lastOffset; offset++) {
          const ack = ackedHere?.get(offset);
          if (ack !== undefined && append.leaderEpoch > ack.epoch && !overwritten.has(`${key}@${offset}`)) {
            overwritten.set(`${key}@${offset}`, { offset, t: event.t, index });
          }
          mine[offset] = append.leaderEpoch;
          latest[offset] = append.leaderEpoch;
        }
        return;
      }
      const ack = observationOf(event, "producer.ack");
      if (ack !== undefined && ack.errorCode === 0 && ack.baseOffset >= 0) {
        const key = tpKey(ack.topic, ack.partition);
        const leaders = ack.leader === null ? undefined : appendedEpoch.get(key)?.get(ack.leader);
        const latest = latestEpoch.get(key);
        const mine = getOrCreate(acked, key, () => new Map());
        for (let offset = ack.baseOffset; offset <= ack.lastOffset; offset++) {
          const epoch = leaders?.[offset] ?? latest?.[offset] ?? -1;
          mine.set(offset, { epoch, t: event.t, index });
        }
        return;
      }
      const records = observationOf(event, "member.records");
      if (records !== undefined) {
        for (const range of records.ranges) addRange(consumedOf.get(range.topic, range.partition), range.firstOffset, range.lastOffset);
        return;
      }
      const notOwned = observationOf(event, "member.records-dropped");
      if (notOwned !== undefined && event.ev === "obs")
        for (const range of notOwned.ranges)
          getOrCreate(dropped, tpKey(range.topic, range.partition), () => []).push({
            actor: event.actor,
            t: event.t,
            first: range.firstOffset,
            last: range.lastOffset,
          });
    };
    /** The first fetch that brought one of `unseen` (sorted) to a client that did not own `tp`, as a clause of the message. */
    const droppedClause = (tp: string, unseen: readonly number[]): string => {
      for (const fetch of dropped.get(tp) ?? []) {
        const offsets = unseen.filter((offset) => fetch.first <= offset && offset <= fetch.last);
        if (offsets.length === 0) continue;
        const shown = offsets.length > 5 ? `${offsets.slice(0, 5).join(", ")}, ... (${offsets.length})` : offsets.join(", ");
        return (
          `; ${fetch.actor} fetched ${offsets.length === 1 ? "offset" : "offsets"} ${shown} at ${formatSeconds(fetch.t)} without owning ${tp}: ` +
          "a client drops such records, and if it handed them to its application anyway, the wire cannot show it"
        );
      }
      return "";
    };
    /** The groups that consume each partition, from the spec (built at the first question). */
    let groupsOf: Map<string, GroupTopology[]> | null = null;
    /** Why no group can consume a partition any more: every group subscribed to it has stopped (null: one can, or none subscribes). */
    const whyNoConsumer = (tp: string): string | null => {
      if (groupsOf === null) {
        groupsOf = new Map();
        for (const group of groupTopologies(spec)) for (const p of group.partitions) getOrCreate(groupsOf, p, () => []).push(group);
      }
      const groups = groupsOf.get(tp) ?? [];
      const reasons: string[] = [];
      for (const group of groups) {
        const reason = stops.noneCanConsume(group.groupId, group.members);
        if (reason === null) return null;
        reasons.push(reason);
      }
      return reasons.length > 0 ? reasons.join("; ") : null;
    };
    const finish = () => {
      const violations = new ViolationList();
      /** Partitions whose unconsumed tail is not judged, by the reason no group can consume them. */
      const undrained = new Map<string, string[]>();
      for (const [key, loss] of [...overwritten].sort((a, b) => a[1].t - b[1].t)) {
        violations.add(loss.t, `acknowledged record ${key.replace("@", " offset ")} was overwritten by another leader: lost`, [loss.index]);
      }
      for (const [tp, offsets] of acked) {
        const ranges = (consumed.get(tp) ?? []).sort((a, b) => a[0] - b[0]);
        // With no consumer left to drain the partition, only records below the last one its consumers got are judged
        // (asked at the first record never consumed: most partitions have none).
        let stopped: string | null | undefined;
        let judgedUpTo = Number.POSITIVE_INFINITY;
        const unseen: number[] = [];
        let firstIndex = -1;
        let undrainedHere = false;
        for (const [offset, ack] of offsets) {
          if (ack.t > cutoff || overwritten.has(`${tp}@${offset}`)) continue;
          if (ranges.some(([from, to]) => from <= offset && offset <= to)) continue;
          if (stopped === undefined) {
            stopped = whyNoConsumer(tp);
            if (stopped !== null) judgedUpTo = ranges.reduce((most, [, to]) => Math.max(most, to), -1);
          }
          if (offset > judgedUpTo) {
            undrainedHere = true;
            continue;
          }
          unseen.push(offset);
          if (firstIndex < 0) firstIndex = ack.index;
        }
        if (undrainedHere && stopped != null) getOrCreate(undrained, stopped, () => []).push(tp);
        if (unseen.length > 0) {
          unseen.sort((a, b) => a - b);
          const shown = unseen.length > 5 ? `${unseen.slice(0, 5).join(", ")}, ... (${unseen.length} in all)` : unseen.join(", ");
          violations.add(spec.durationUs, `${tp}: acknowledged records never consumed: offsets ${shown}${droppedClause(tp, unseen)}`, [
            firstIndex,
          ]);
        }
      }
      const result = violations.result();
      if (!result.ok || undrained.size === 0) return result;
      return notJudged(
        [...undrained]
          .map(([why, tps]) => `${why}: records of ${listedPartitions(tps)} past the last one consumed: no consumer is left to drain them`)
          .join("; "),
      );
    };
    return { reads: ["broker.append", "producer.ack", "member.records", "member.records-dropped"], accept, finish };
  },
});
