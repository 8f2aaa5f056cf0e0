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
    /** group -> partition -> members holding it: who else holds a partition, without a walk over every member */
    const holders = new Map<string, Map<string, Set<string>>>();
    /** group -> partition -> history index of the holder's last gc.member */
    const lastSeen = new Map<string, number>();
    const groupHolds = (groupId: string) => getOrCreate(holds, groupId, () => new Map<string, Set<string>>());
    const groupHolders = (groupId: string) => getOrCreate(holders, groupId, () => new Map<string, Set<string>>());
    const release = (groupId: string, memberId: string, partitions: Iterable<string>, keep: ReadonlySet<string>) => {
      const byPartition = groupHolders(groupId);
      for (const partition of partitions) if (!keep.has(partition)) byPartition.get(partition)?.delete(memberId);
    };
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
          const g = groupHolds(removed.groupId);
          release(removed.groupId, removed.memberId, g.get(removed.memberId) ?? [], new Set());
          g.delete(removed.memberId);
          return;
        }
        const member = observationOf(event, "gc.member");
        if (member === undefined || !consumerGroups.has(member.groupId)) return;
        const g = groupHolds(member.groupId);
        const previous = g.get(member.memberId) ?? new Set<string>();
        const next = new Set<string>();
        for (const { topic, partition } of topicPartitionsOf(member.assigned)) next.add(tpKey(topic, partition));
        for (const { topic, partition } of topicPartitionsOf(member.pendingRevocation)) next.add(tpKey(topic, partition));
        const byPartition = groupHolders(member.groupId);
        for (const partition of next) {
          if (previous.has(partition)) continue;
          const partitionHolders = getOrCreate(byPartition, partition, () => new Set<string>());
          const heldByAnother = partitionHolders.size > (partitionHolders.has(member.memberId) ? 1 : 0);
          partitionHolders.add(member.memberId);
          if (!heldByAnother) continue;
          // Walk the members in the order they joined, so the violations come out in that order.
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
        release(member.groupId, member.memberId, previous, next);
        g.set(member.memberId, next);
        lastSeen.set(`${member.groupId}/${member.memberId}`, index);
      },
      finish: () => violations.result(),
    };
  },
});
