import { observationOf } from "../analysis/observations.js";
import { type Checker, ViolationList } from "./checker.js";

/** DESIGN.md rule 4: a group's committed offsets never go backward (no explicit resets happen in scenarios). */
export const committedOffsetsMonotonic: Checker = {
  name: "committed-offsets-monotonic",
  description: "committed offsets of a group never go backward",
  check(events) {
    const violations = new ViolationList();
    const last = new Map<string, { offset: number; index: number }>();
    events.forEach((event, index) => {
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
      last.set(key, { offset: commit.offset, index });
    });
    return violations.result();
  },
};
