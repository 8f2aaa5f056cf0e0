import type { Micros } from "@kcsim/protocol";
import { sharedConsumerStops } from "../analysis/consumer-stops.js";
import { type GroupTopology, groupTopologies } from "../analysis/group-topology.js";
import { sharedLostAssignmentAnswers } from "../analysis/lost-assignment-answers.js";
import { observationOf } from "../analysis/observations.js";
import { OWNERSHIP_EVENTS, sharedOwnership } from "../analysis/ownership-timeline.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { decided, notJudged, streamingChecker, ViolationList } from "./checker.js";
import { healOf } from "./heal-time.js";
import { UnownedPartitionsStory } from "./unowned-partitions-story.js";

/** Slack added to the timeout-derived bound for retries, backoffs and coordinator loading. */
const SLACK_MS = 30_000;

/** When a group must have converged, for faults that heal at `heal`. */
function groupDeadlineUs(heal: Micros, group: GroupTopology): Micros {
  return heal + (group.sessionTimeoutMs + group.rebalanceTimeoutMs + 5 * group.heartbeatIntervalMs + SLACK_MS) * 1000;
}

/**
 * The time by which every group of the run must have converged (the latest
 * of their bounds), or null when there is nothing to judge: the faults never
 * heal, or the run has no group. A run that ends before it may leave
 * `converges` not judged; a hunt runs such a seed on to this time.
 */
export function convergenceDeadlineUs(spec: SimulationSpec): Micros | null {
  const healed = healOf(spec);
  if ("never" in healed) return null;
  const deadlines = groupTopologies(spec).map((group) => groupDeadlineUs(healed.atUs, group));
  return deadlines.length === 0 ? null : Math.max(...deadlines);
}

/**
 * DESIGN.md rule 7: after the faults heal, every group reaches STABLE with
 * every subscribed partition owned by a live member, within a bound derived
 * from its timeouts: session timeout + rebalance timeout + 5 heartbeat
 * intervals + 30 s. A group whose members are all gone is exempt.
 *
 * A member whose consumer hit a fatal error (`member.fatal`) or that was
 * told to close is gone from its group until its process restarts
 * (ConsumerStops, which says why: a static KIP-848 member restarted before
 * its old incarnation's session ran out is refused for good with
 * UNRELEASED_INSTANCE_ID). A group that has live members only stopped by a
 * fatal error cannot converge, and the rule is not judged for it (the
 * reason names the errors); a group with any other live member must still
 * converge. An online migration closes each old process as its
 * replacement starts, so a group left with closing old processes and FATAL
 * replacements cannot converge either.
 *
 * A group that never converged is told as a story (UnownedPartitionsStory):
 * the partitions without a live owner at the run's end, whom the
 * coordinator has them assigned to, and what those clients hold.
 */
export const converges = streamingChecker({
  name: "converges",
  description: "after faults heal, each group is STABLE with every partition owned, within a bound from its timeouts",
  judge(pass) {
    const spec = pass.spec;
    // "After the faults heal" must come within the run, or there is nothing to judge (and no pass to claim).
    const healed = healOf(spec);
    if ("never" in healed) return decided(notJudged(`the faults never heal (${healed.never})`));
    const heal = healed.atUs;
    if (heal >= spec.durationUs)
      return decided(notJudged(`the faults heal at ${heal} us, not before the run's end at ${spec.durationUs} us`));
    const timeline = pass.shared(sharedOwnership);
    const groups = groupTopologies(spec).map((group) => ({
      group,
      deadline: groupDeadlineUs(heal, group),
      stable: false,
      convergedAt: null as number | null,
      unowned: timeline.watchUnowned(group.partitions),
    }));
    /** Groups settled after the event at `t` (at or after the heal) converge there, unless they already have. */
    const settleAt = (t: Micros) => {
      for (const state of groups) if (state.convergedAt === null && state.stable && state.unowned.count === 0) state.convergedAt = t;
    };
    // A group already settled converges at the first event after the heal, whatever it is; after that, only
    // the events that make a group STABLE or move ownership (those the timeline reads) can settle one.
    pass.atFirstEventFrom(heal, (event) => settleAt(event.t));
    const stops = pass.shared(sharedConsumerStops);
    const story = new UnownedPartitionsStory(pass.shared(sharedLostAssignmentAnswers), timeline);
    return {
      reads: ["gc.group", ...OWNERSHIP_EVENTS, ...UnownedPartitionsStory.reads],
      accept(event, index) {
        story.accept(event, index);
        const g = observationOf(event, "gc.group");
        if (g !== undefined)
          for (const state of groups)
            if (g.groupId === state.group.groupId) state.stable = g.state === "STABLE" && g.groupEpoch === g.assignmentEpoch;
        if (event.t >= heal) settleAt(event.t);
      },
      finish() {
        const violations = new ViolationList();
        /** Groups still settling when the run ended before their bound, or left with FATAL consumers only: the rule cannot be judged for them. */
        const undecided: string[] = [];
        for (const { group, deadline, convergedAt } of groups) {
          if (stops.stillRunning(group.members).length === 0 || (convergedAt !== null && convergedAt <= deadline)) continue;
          const stopped = stops.noneCanConsume(group.groupId, group.members);
          if (stopped !== null) {
            undecided.push(`${stopped}, so it cannot converge`);
            continue;
          }
          if (convergedAt !== null) {
            violations.add(
              convergedAt,
              `group ${group.groupId} converged only at ${convergedAt} us, after its bound ${deadline} us (faults healed at ${heal} us)`,
            );
          } else if (spec.durationUs >= deadline) {
            const message = `group ${group.groupId} never reached STABLE with all ${group.partitions.length} partitions owned after the faults healed at ${heal} us`;
            const told = story.tell(group.groupId, group.partitions, timeline, {
              fatal: (actor) => stops.fatalError(actor),
              closed: (actor) => stops.isClosed(actor),
            });
            if (told === null) violations.add(deadline, message);
            else violations.add(deadline, `${message}; ${told.text}`, [...told.cited]);
          } else {
            // Not converged yet, but its bound had not passed: a longer run could still see it converge in time.
            undecided.push(
              `group ${group.groupId} had not converged when the run ended at ${spec.durationUs} us, before its bound ${deadline} us (faults healed at ${heal} us)`,
            );
          }
        }
        const result = violations.result();
        return result.ok && undecided.length > 0 ? notJudged(undecided.join("; ")) : result;
      },
    };
  },
});
