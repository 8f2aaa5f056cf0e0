import { accountResults } from "../analysis/result-accounting.js";
import { type Checker, ViolationList } from "./checker.js";

/**
 * DESIGN.md rule 5 for consume-process-produce groups: the output topic
 * holds each committed input record's result exactly once. The output is
 * judged as read_committed readers saw it: a group reading the output
 * topic (isolation.level=read_committed) that writes what it reads to a
 * sink (`sink.write`); without one the checker has no evidence and fails.
 * A committed input record (acknowledged, not in an aborted transaction)
 * acknowledged before the drain cut-off without a result is a loss; a
 * result found twice is a duplicate, reported with its cause (a crash
 * before the commit, a fenced member, a rebalance, ...). With transactions
 * there are none, but for a result that a late COMMIT marker of an earlier
 * transaction made visible (Kafka's transaction version 1), which is told
 * with that marker's story (StaleTxnMarkers); without them the duplicates
 * are the point (see output-duplicates-attributed for the rule that each
 * has a cause).
 */
export const exactlyOnceOutput: Checker = {
  name: "exactly-once-output",
  description: "a consume-process-produce group's output holds each committed input record's result exactly once",
  check(events, spec) {
    const violations = new ViolationList();
    const accounts = accountResults(events, spec);
    if (accounts.length === 0) violations.add(0, "no consume-process-produce group in the scenario: nothing to judge");
    for (const account of accounts) {
      const { groupId, outputTopic, results } = account;
      if (results.recordsRead === 0 && account.committedInput > 0) {
        violations.add(
          spec.durationUs,
          `${groupId}: nothing of ${outputTopic} was read: add a group reading it with isolation.level=read_committed and a sink`,
        );
        continue;
      }
      for (const stray of account.strays) {
        violations.add(
          stray.copy.t,
          `${groupId}: ${stray.copy.outputTp}@${stray.copy.outputOffset} is the result of ${stray.input}, which is in an aborted or open transaction`,
          [stray.copy.index],
        );
      }
      for (const foreign of results.foreign) {
        violations.add(foreign.t, `${groupId}: ${outputTopic} holds a record that is no result: ${JSON.stringify(foreign.value)}`, [
          foreign.index,
        ]);
      }
      const first = account.duplicates[0];
      if (first !== undefined) {
        const causes = new Map<string, number>();
        for (const d of account.duplicates) causes.set(d.cause ?? "none found", (causes.get(d.cause ?? "none found") ?? 0) + 1);
        const byCause = [...causes].map(([cause, n]) => `${cause} x${n}`).join(", ");
        // A copy committed by a late marker of an earlier transaction is the story: the summary cites the first.
        const stale = account.duplicates.filter((d) => d.staleMarker !== null).length;
        const firstStale = account.duplicates.find((d) => d.staleMarker !== null)?.staleMarker ?? null;
        const staleNote =
          firstStale === null
            ? ""
            : `; ${stale} of them with a result a late COMMIT marker of an earlier transaction made visible (${firstStale.text})`;
        violations.add(
          first.copies[1]?.t ?? 0,
          `${groupId}: ${account.duplicates.length} of ${account.committedInput} committed input records have more than one result in ${outputTopic} (${byCause})${staleNote}`,
          firstStale?.cited ?? [],
        );
      }
      for (const duplicate of account.duplicates) {
        const copies = duplicate.copies.map((c) => `${c.outputTp}@${c.outputOffset} by ${c.writer}`).join(", ");
        const story = duplicate.staleMarker === null ? "" : `; ${duplicate.staleMarker.text}`;
        violations.add(
          duplicate.copies[1]?.t ?? 0,
          `${groupId}: ${duplicate.input} has ${duplicate.copies.length} results in ${outputTopic} (${copies}); cause: ${duplicate.cause ?? "none found"}${story}`,
          [...duplicate.copies.map((c) => c.index), ...(duplicate.staleMarker?.cited ?? [])],
        );
      }
      for (const [tp, missing] of account.missing) {
        const offsets = missing.map((m) => m.offset).sort((a, b) => a - b);
        const shown = offsets.length > 5 ? `${offsets.slice(0, 5).join(", ")}, ... (${offsets.length} in all)` : offsets.join(", ");
        violations.add(spec.durationUs, `${groupId}: committed input ${tp} without a result in ${outputTopic}: offsets ${shown}`, [
          missing[0]?.index ?? 0,
        ]);
      }
    }
    violations.items.sort((a, b) => a.t - b.t);
    return violations.result();
  },
};
