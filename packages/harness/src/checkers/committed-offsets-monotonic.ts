import { observationOf } from "../analysis/observations.js";
import { streamingChecker, ViolationList } from "./checker.js";

/** DESIGN.md rule 4: a group's committed offsets never go backward (no explicit resets happen in scenarios). */
export const committedOffsetsMonotonic = streamingChecker({
  name: "committed-offsets-monotonic",
  description: "committed offsets of a group never go backward",
  judge() {
    const violations = new ViolationList();
    const last = new Map<string, { offset: number; index: number }>();
    return {
      reads: ["gc.offset-commit"],
      accept(event, index) {
        const commit = observationOf(event, "gc.offset-commit");
        if (commit === undefined || commit.errorCode !== 0) return;
        const key = `${commit.groupId}/${commit.topic}-${commit.partition}`;
        const previous = last.get(key);
        if (previous !== undefined && commit.offset < previous.offset) {
          violations.add(
            event.t,
            `group ${commit.groupId}: ${commit.topic}-${commit.partition} committed ${commit.offset} after ${previous.offset} (by ${commit.memberId})`,
            [previous.index, index],
          );
        }
        // The entry of a partition moves with each of its commits: updated in place, not made again.
        if (previous === undefined) last.set(key, { offset: commit.offset, index });
        else {
          previous.offset = commit.offset;
          previous.index = index;
        }
      },
      finish: () => violations.result(),
    };
  },
});
