import { getOrCreate, topicPartitionsOf, tpKey } from "@kcsim/protocol";
import { observationOf } from "../analysis/observations.js";
import { streamingChecker, ViolationList } from "./checker.js";

/**
 * DESIGN.md rule 1: the coordinator never gives a partition to a new owner
 * before the previous owner has acknowledged revoking it (or has been
 * fenced or expired). Read from the coordinator's own view of KIP-848
 * consumer groups: `gc.member` (assigned + pending revocation = the
 * partitions whose partition epoch a member holds) and `gc.member-removed`.
 * Classic groups are judged on the client side (single-owner).
 */
export const revokeBeforeReassign = streamingChecker({
  name: "revoke-before-reassign",
  description: "a partition reaches its new owner only after the old owner revoked it or was fenced",
  judge() {
    const violations = new ViolationList();
    const consumerGroups = new Set<string>();
    /** group -> member -> partitions it holds (assigned or pending revocation) */
    const holds = new Map<string, Map<string, Set<string>>>();
    /** group -> partition -> history index of the holder's last gc.member */
    const lastSeen = new Map<string, number>();
    const groupHolds = (groupId: string) => getOrCreate(holds, groupId, () => new Map<string, Set<string>>());
    return {
      reads: ["gc.group", "gc.member-removed", "gc.member"],
      accept(event, index) {
        const group = observationOf(event, "gc.group");
        if (group !== undefined) {
          if (group.protocol === "consumer") consumerGroups.add(group.groupId);
          else consumerGroups.delete(group.groupId);
          return;
        }
        const removed = observationOf(event, "gc.member-removed");
        if (removed !== undefined) {
          groupHolds(removed.groupId).delete(removed.memberId);
          return;
        }
        const member = observationOf(event, "gc.member");
        if (member === undefined || !consumerGroups.has(member.groupId)) return;
        const g = groupHolds(member.groupId);
        const previous = g.get(member.memberId) ?? new Set<string>();
        const next = new Set<string>();
        for (const { topic, partition } of topicPartitionsOf(member.assigned)) next.add(tpKey(topic, partition));
        for (const { topic, partition } of topicPartitionsOf(member.pendingRevocation)) next.add(tpKey(topic, partition));
        for (const partition of next) {
          if (previous.has(partition)) continue;
          for (const [other, theirs] of g) {
            if (other !== member.memberId && theirs.has(partition)) {
              violations.add(
                event.t,
                `group ${member.groupId}: ${partition} given to ${member.memberId} (epoch ${member.memberEpoch}) while ${other} still holds it`,
                [lastSeen.get(`${member.groupId}/${other}`) ?? index, index],
              );
            }
          }
        }
        g.set(member.memberId, next);
        lastSeen.set(`${member.groupId}/${member.memberId}`, index);
      },
      finish: () => violations.result(),
    };
  },
});
