import { OwnershipTimeline } from "../analysis/ownership-timeline.js";
import { type Checker, ViolationList } from "./checker.js";

/**
 * DESIGN.md rule 2: among live, unfenced members, no partition has two
 * owners at once. Ownership is the application's (`member.owned`); a
 * member the coordinator fenced stops counting until it rejoins, a crashed
 * one at once.
 */
export const singleOwner: Checker = {
  name: "single-owner",
  description: "no partition has two live, unfenced owners at once",
  check(events) {
    const violations = new ViolationList();
    const timeline = new OwnershipTimeline();
    const reported = new Set<string>();
    events.forEach((event, index) => {
      timeline.apply(event);
      for (const conflict of timeline.conflicts) {
        const key = `${conflict.partition}:${[...conflict.owners].sort().join(",")}`;
        if (reported.has(key)) continue;
        reported.add(key);
        violations.add(event.t, `${conflict.partition} owned by ${conflict.owners.join(" and ")} at once`, [index]);
      }
    });
    return violations.result();
  },
};
