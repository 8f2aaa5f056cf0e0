import { observationOf } from "../analysis/observations.js";
import { streamingChecker, ViolationList } from "./checker.js";

/** A gc.group of the operation being read: the group's epoch before and after it. */
interface EpochChange {
  readonly groupId: string;
  readonly before: number | undefined;
  readonly after: number;
  /** The group's protocol and state before the operation (from the last gc.group before it). */
  readonly previous: GroupState | undefined;
  readonly index: number;
}

interface GroupState {
  readonly protocol: string;
  readonly state: string;
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
 *
 * A classic group keeps its generation on a static rejoin only when it
 * was STABLE (GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin):
 * in PREPARING_REBALANCE the rejoin is one more member joining, and the
 * join phase it may complete moves the generation as any join would; in
 * COMPLETING_REBALANCE Kafka rebalances on purpose (the leader may have
 * assigned the old member id). Those bumps are not the replacement's.
 */
export const staticReplacementNoBump = streamingChecker({
  name: "static-replacement-no-bump",
  description: "a static member rejoining under its instance id does not bump the group epoch",
  judge() {
    const violations = new ViolationList();
    /** groupId -> its last reported group epoch */
    const epochs = new Map<string, number>();
    /** groupId -> its last reported protocol and state */
    const states = new Map<string, GroupState>();
    /** coordinator -> the gc.group run it reported last (cleared by any other observation) */
    const runs = new Map<string, { t: number; changes: EpochChange[] }>();
    return {
      reads: ["obs"],
      accept(event, index) {
        if (event.ev !== "obs") return;
        const group = observationOf(event, "gc.group");
        if (group !== undefined) {
          const run = runs.get(event.actor);
          const change = {
            groupId: group.groupId,
            before: epochs.get(group.groupId),
            after: group.groupEpoch,
            previous: states.get(group.groupId),
            index,
          };
          if (run !== undefined && run.t === event.t) run.changes.push(change);
          else runs.set(event.actor, { t: event.t, changes: [change] });
          epochs.set(group.groupId, group.groupEpoch);
          states.set(group.groupId, { protocol: group.protocol, state: group.state });
          return;
        }
        // Most observations come while no gc.group run is open (a member's poll, a commit): nothing to clear or judge.
        if (runs.size === 0) return;
        const run = runs.get(event.actor);
        runs.delete(event.actor);
        const removed = observationOf(event, "gc.member-removed");
        if (removed === undefined || removed.reason !== "static-replaced" || run === undefined || run.t !== event.t) return;
        const bump = run.changes.find((c) => c.groupId === removed.groupId && c.before !== undefined && c.after > c.before);
        if (bump === undefined) return;
        // The state before the operation is the first change's previous state (later ones are the operation's own).
        const before = run.changes.find((c) => c.groupId === removed.groupId)?.previous;
        if (before?.protocol === "classic" && before.state !== "STABLE") return;
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
