import { observationOf } from "../analysis/observations.js";
import { streamingChecker, ViolationList } from "./checker.js";

/** A gc.group of the operation being read: the group's epoch before and after it. */
interface EpochChange {
  readonly groupId: string;
  readonly before: number | undefined;
  readonly after: number;
  readonly index: number;
}

/**
 * KIP-848 static membership (spec 1.3, GMM `replaceMember`): a static member
 * that rejoins under its instance id takes over the old member's target
 * assignment, so the group epoch does not move and nobody else rebalances.
 * Only bumps the replacement itself causes are judged: the coordinator
 * reports one operation as its gc.group changes followed by the
 * operation's own observations, so a gc.group with a higher epoch right
 * before the `static-replaced` removal (same coordinator, same instant,
 * nothing else between) is that operation's bump. Epoch bumps for any
 * other reason (a new subscription, a fenced member) are out of scope.
 */
export const staticReplacementNoBump = streamingChecker({
  name: "static-replacement-no-bump",
  description: "a static member rejoining under its instance id does not bump the group epoch",
  judge() {
    const violations = new ViolationList();
    /** groupId -> its last reported group epoch */
    const epochs = new Map<string, number>();
    /** coordinator -> the gc.group run it reported last (cleared by any other observation) */
    const runs = new Map<string, { t: number; changes: EpochChange[] }>();
    return {
      reads: ["obs"],
      accept(event, index) {
        if (event.ev !== "obs") return;
        const group = observationOf(event, "gc.group");
        if (group !== undefined) {
          const run = runs.get(event.actor);
          const change = { groupId: group.groupId, before: epochs.get(group.groupId), after: group.groupEpoch, index };
          if (run !== undefined && run.t === event.t) run.changes.push(change);
          else runs.set(event.actor, { t: event.t, changes: [change] });
          epochs.set(group.groupId, group.groupEpoch);
          return;
        }
        const run = runs.get(event.actor);
        runs.delete(event.actor);
        const removed = observationOf(event, "gc.member-removed");
        if (removed === undefined || removed.reason !== "static-replaced" || run === undefined || run.t !== event.t) return;
        const bump = run.changes.find((c) => c.groupId === removed.groupId && c.before !== undefined && c.after > c.before);
        if (bump === undefined) return;
        violations.add(
          event.t,
          `group ${removed.groupId}: the static rejoin of instance ${removed.instanceId ?? "?"} (replacing ${removed.memberId}) bumped the group epoch ${bump.before} -> ${bump.after}`,
          [bump.index, index],
        );
      },
      finish: () => violations.result(),
    };
  },
});
