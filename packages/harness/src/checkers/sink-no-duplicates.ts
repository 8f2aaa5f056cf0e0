import { sinkDuplicates } from "../analysis/sink-duplicates.js";
import { type Checker, ViolationList } from "./checker.js";

/**
 * Exactly-once beyond Kafka: each group's external store (rebuilt from its
 * `sink.write` observations) holds at most one row per input record. An
 * upsert sink keeps it (a re-delivered record overwrites its row); an
 * append sink breaks it whenever a record is processed again after a crash
 * between the write and the offset commit, or another re-delivery: each
 * duplicate is reported with its cause. That is where exactly-once stops.
 */
export const sinkNoDuplicates: Checker = {
  name: "sink-no-duplicates",
  description: "an application's external store holds at most one row per input record",
  check(events, spec) {
    const violations = new ViolationList();
    const duplicates = sinkDuplicates(events, spec);
    const groups = new Map<string, { t: number; count: number; causes: Map<string, number> }>();
    for (const d of duplicates) {
      const group = groups.get(d.groupId) ?? { t: d.rows[1]?.t ?? 0, count: 0, causes: new Map<string, number>() };
      group.count++;
      group.causes.set(d.cause ?? "none found", (group.causes.get(d.cause ?? "none found") ?? 0) + 1);
      groups.set(d.groupId, group);
    }
    for (const [groupId, { t, count, causes }] of groups) {
      const byCause = [...causes].map(([cause, n]) => `${cause} x${n}`).join(", ");
      violations.add(t, `${groupId}: ${count} input records have more than one row in the sink (${byCause})`);
    }
    for (const duplicate of duplicates) {
      violations.add(
        duplicate.rows[1]?.t ?? 0,
        `${duplicate.groupId}: ${duplicate.mode} sink holds ${duplicate.rows.length} rows of ${duplicate.input} (written by ${duplicate.rows.map((r) => r.actor).join(", ")}); cause: ${duplicate.cause ?? "none found"}`,
        duplicate.rows.map((r) => r.index),
      );
    }
    violations.items.sort((a, b) => a.t - b.t);
    return violations.result();
  },
};
