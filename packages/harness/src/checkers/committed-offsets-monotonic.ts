import { observationOf } from "../analysis/observations.js";
import { PartitionTable } from "../analysis/partition-table.js";
import { streamingChecker, ViolationList } from "./checker.js";

/** DESIGN.md rule 4: a group's committed offsets never go backward (no explicit resets happen in scenarios). */
export const committedOffsetsMonotonic = streamingChecker({
  name: "committed-offsets-monotonic",
  description: "committed offsets of a group never go backward",
  judge() {
    const violations = new ViolationList();
    /** group -> partition -> its last accepted commit (offset and history index; index -1: none yet): no key string per commit. */
    const last = new Map<string, PartitionTable<{ offset: number; index: number }>>();
    return {
      reads: ["gc.offset-commit"],
      accept(event, index) {
        const commit = observationOf(event, "gc.offset-commit");
        if (commit === undefined || commit.errorCode !== 0) return;
        let partitions = last.get(commit.groupId);
        if (partitions === undefined) {
          partitions = new PartitionTable(() => ({ offset: 0, index: -1 }));
          last.set(commit.groupId, partitions);
        }
        // The entry of a partition moves with each of its commits: updated in place, not made again.
        const previous = partitions.get(commit.topic, commit.partition);
        if (previous.index >= 0 && commit.offset < previous.offset) {
          violations.add(
            event.t,
            `group ${commit.groupId}: ${commit.topic}-${commit.partition} committed ${commit.offset} after ${previous.offset} (by ${commit.memberId})`,
            [previous.index, index],
          );
        }
        previous.offset = commit.offset;
        previous.index = index;
      },
      finish: () => violations.result(),
    };
  },
});
