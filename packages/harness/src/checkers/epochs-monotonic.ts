import { observationOf } from "../analysis/observations.js";
import { streamingChecker, ViolationList } from "./checker.js";

/** Member epochs may also drop to these: 0 (rejoin), -1 (left), -2 (static member left temporarily). */
const RESET_EPOCHS = new Set([0, -1, -2]);

/**
 * DESIGN.md rule 6: group epoch and assignment epoch never decrease (also
 * across coordinator restarts); a member epoch only moves up, or back to 0
 * on rejoin (or -1 / -2 on leave). Checked on the coordinator's records
 * (`gc.group`, `gc.member`) and on each client's own view (`member.state`).
 *
 * One exception is Kafka's own: a classic group's record is written only
 * when a generation's assignment is installed (or the group empties), so a
 * coordinator that fails over in the middle of a join phase reloads the
 * group at its last installed generation and may hand the lost number out
 * again. Nobody ever got an assignment for the lost generation, so after a
 * reload a classic group's generation may drop, but never below the last
 * generation that handed out assignments.
 */
export const epochsMonotonic = streamingChecker({
  name: "epochs-monotonic",
  description: "group and assignment epochs never decrease; member epochs only rise or reset to 0",
  judge() {
    const violations = new ViolationList();
    const groups = new Map<string, { protocol: string; members: number; groupEpoch: number; assignmentEpoch: number; index: number }>();
    /** classic group -> highest generation whose assignments were installed (gc.member) */
    const installed = new Map<string, number>();
    const reloaded = new Set<string>();
    const members = new Map<string, { epoch: number; index: number }>();
    const memberMove = (key: string, who: string, epoch: number, t: number, index: number) => {
      const previous = members.get(key);
      if (previous !== undefined && epoch < previous.epoch && !RESET_EPOCHS.has(epoch)) {
        violations.add(t, `${who}: member epoch went from ${previous.epoch} down to ${epoch}`, [previous.index, index]);
      }
      members.set(key, { epoch, index });
    };
    return {
      reads: ["gc.loaded", "gc.group", "gc.member", "gc.member-removed", "member.state"],
      accept(event, index) {
        if (observationOf(event, "gc.loaded") !== undefined) {
          for (const groupId of groups.keys()) reloaded.add(groupId);
          return;
        }
        const group = observationOf(event, "gc.group");
        if (group !== undefined) {
          let previous = groups.get(group.groupId);
          const reload = reloaded.delete(group.groupId);
          if (group.protocol === "classic" && reload && previous !== undefined) {
            const floor = installed.get(group.groupId) ?? -1;
            if (group.groupEpoch < floor) {
              violations.add(
                event.t,
                `group ${group.groupId}: reloaded at generation ${group.groupEpoch}, below generation ${floor} whose assignments were handed out`,
                [previous.index, index],
              );
            }
            previous = undefined;
          }
          // A group deleted and created anew may restart its epochs, and what its predecessor handed out is no floor
          // for it. It shows as EMPTY with no members at epoch 0, or as a group of the other protocol in place of an
          // empty one: a member of one protocol joining an empty group of the other makes Kafka delete that group and
          // create its own (maybeDeleteEmptyConsumerGroup, maybeDeleteEmptyClassicGroup), where a non-empty group is
          // converted with its epoch. Swarm-migration seeds: 115 reloaded the new classic group at generation 0 after
          // the consumer group had handed out epoch 3; 335's new consumer group started at epoch 1 after the empty
          // classic group's generation 3.
          const replacedEmpty = previous !== undefined && previous.protocol !== group.protocol && previous.members === 0;
          const createdAnew = (group.members === 0 && group.groupEpoch === 0) || replacedEmpty;
          if (createdAnew && !reload) installed.delete(group.groupId);
          if (previous !== undefined && !createdAnew) {
            if (group.groupEpoch < previous.groupEpoch) {
              violations.add(event.t, `group ${group.groupId}: group epoch went from ${previous.groupEpoch} down to ${group.groupEpoch}`, [
                previous.index,
                index,
              ]);
            }
            if (group.assignmentEpoch < previous.assignmentEpoch) {
              violations.add(
                event.t,
                `group ${group.groupId}: assignment epoch went from ${previous.assignmentEpoch} down to ${group.assignmentEpoch}`,
                [previous.index, index],
              );
            }
          }
          groups.set(group.groupId, {
            protocol: group.protocol,
            members: group.members,
            groupEpoch: group.groupEpoch,
            assignmentEpoch: group.assignmentEpoch,
            index,
          });
          return;
        }
        const member = observationOf(event, "gc.member");
        if (member !== undefined) {
          installed.set(member.groupId, Math.max(installed.get(member.groupId) ?? -1, member.memberEpoch));
          memberMove(`gc/${member.groupId}/${member.memberId}`, `coordinator's ${member.memberId}`, member.memberEpoch, event.t, index);
          return;
        }
        const removed = observationOf(event, "gc.member-removed");
        if (removed !== undefined) {
          members.delete(`gc/${removed.groupId}/${removed.memberId}`);
          return;
        }
        const state = observationOf(event, "member.state");
        if (state !== undefined && state.protocol === "consumer" && event.ev === "obs") {
          memberMove(`client/${event.actor}`, `${event.actor}`, state.memberEpoch, event.t, index);
        }
      },
      finish: () => violations.result(),
    };
  },
});
