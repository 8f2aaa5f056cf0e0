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
        if (commit === undefined) return;
        let partitions = last.get(commit.groupId);
        if (partitions === undefined) {
          partitions = new PartitionTable(() => ({ offset: 0, index: -1 }));
          last.set(commit.groupId, partitions);
        }
        for (const topic of commit.topics) {
          for (let i = 0; i < topic.partitions.length; i++) {
            if (topic.errorCodes[i] !== 0) continue;
            const partition = topic.partitions[i] as number;
            const offset = topic.offsets[i] as number;
            // The entry of a partition moves with each of its commits: updated in place, not made again.
            const previous = partitions.get(topic.topic, partition);
            if (previous.index >= 0 && offset < previous.offset) {
              violations.add(
                event.t,
                `group ${commit.groupId}: ${topic.topic}-${partition} committed ${offset} after ${previous.offset} (by ${commit.memberId})`,
                [previous.index, index],
              );
            }
            previous.offset = offset;
            previous.index = index;
          }
        }
      },
      finish: () => violations.result(),
    };
  },
});
