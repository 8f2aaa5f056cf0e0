import { type ChangedAssignment, changesOf } from "./changed-assignments.js";
import { emptyGroupAssignment, type GroupAssignment, type MemberAssignment } from "./group-assignment.js";
import type { GroupSpec } from "./group-spec.js";
import { missingTopicError, PartitionAssignorError } from "./partition-assignor-error.js";
import { type CountedTarget, PartitionHoldings } from "./partition-holdings.js";
import { assignmentFromPartitionIndexes, sortPartitionIndexes } from "./partition-index-assignment.js";
import { ScratchArrays } from "./scratch-arrays.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";

/** The builder's working arrays: slots of `scratch` (a build borrows them all and runs to completion). */
const Bytes = { Subscribed: 0, Changed: 1, Whole: 2 } as const;
const Ints = {
  Kept: 0,
  Dropped: 1,
  KeptStart: 2,
  UnfilledMembers: 3,
  UnfilledQuota: 4,
  Unassigned: 5,
  NewStart: 6,
  NewEnd: 7,
  MemberPartitions: 8,
} as const;

const scratch = new ScratchArrays();

/** The holdings of each describer's group (a describer serves one group's metadata version). */
const holdingsByDescriber = new WeakMap<SubscribedTopicDescriber, PartitionHoldings>();

function holdingsOf(topics: SubscribedTopicDescriber): PartitionHoldings {
  let holdings = holdingsByDescriber.get(topics);
  if (holdings === undefined) {
    holdings = new PartitionHoldings(topics);
    holdingsByDescriber.set(topics, holdings);
  }
  return holdings;
}

/**
 * The uniform assignor for a group whose members all subscribe to the same
 * topics (Kafka's `UniformHomogeneousAssignmentBuilder`; balance first, then
 * stickiness; spec 3):
 *
 * 1. Unassigned := partitions in no member's current target, topics in the
 *    describer's order, partitions ascending.
 * 2. Per member in spec order: quota = ⌊T/N⌋, +1 for the first T mod N
 *    members whatever they own. Topics no longer subscribed are dropped; a
 *    current topic that fits in the remaining quota is kept whole, otherwise
 *    partitions are kept (in the given order) until the quota is used up and
 *    the rest are appended to Unassigned. Leftover quota makes the member
 *    "unfilled".
 * 3. Unassigned is dealt in order to the unfilled members up to their quota.
 *
 * The subscribed topics are those of the first member (as in Kafka).
 * Partitions are handled as dense integer indexes; members whose target does
 * not change get their current assignment array back. Which partitions the
 * current targets hold is kept per describer from one build to the next
 * (PartitionHoldings), and a member whose whole target fits its quota is
 * not walked partition by partition: a build costs O(members) plus the
 * partitions of the members whose target changes.
 */
export class UniformHomogeneousAssignmentBuilder {
  constructor(
    private readonly groupSpec: GroupSpec,
    private readonly topics: SubscribedTopicDescriber,
  ) {}

  build(): GroupAssignment {
    const members = this.groupSpec.members;
    const result: MemberAssignment[] = new Array(members.length);
    for (let m = 0; m < members.length; m++) result[m] = { memberId: members[m]!.memberId, partitions: members[m]!.currentAssignment };
    for (const change of this.changes()) result[change.index] = { memberId: change.memberId, partitions: change.partitions };
    return { members: result };
  }

  /** The members whose target changes, in member order (`build` gives every other member its current target). */
  changes(): ChangedAssignment[] {
    const members = this.groupSpec.members;
    const topics = this.topics;
    const first = members[0];
    if (first === undefined) return [];

    // Scratch arrays may be longer than asked: loops run to the lengths of this build, never to theirs.
    const topicCount = topics.topics.length;
    const subscribed = scratch.zeroedUint8(Bytes.Subscribed, topicCount);
    let subscribedTopicCount = 0;
    for (const topicId of first.subscribedTopicIds) {
      const topicIndex = topics.topicIndex(topicId);
      if (topicIndex < 0) throw missingTopicError(topicId);
      if (subscribed[topicIndex] === 0) {
        subscribed[topicIndex] = 1;
        subscribedTopicCount++;
      }
    }
    if (subscribedTopicCount === 0) return changesOf(emptyGroupAssignment(members), members);

    // Which partitions some member's current target holds (Kafka's `isPartitionAssigned`).
    const holdings = holdingsOf(topics);
    holdings.update(members);
    const memberCount = members.length;
    const listedPartitions = holdings.listedPartitions;

    let totalPartitions = 0;
    let heldCount = 0;
    for (let t = 0; t < topicCount; t++) {
      if (subscribed[t] === 0) continue;
      totalPartitions += topics.partitionCountAt(t);
      heldCount += holdings.heldInTopic(t);
    }
    const everyTopicSubscribed = subscribedTopicCount === topicCount;
    const minimumQuota = Math.floor(totalPartitions / memberCount);
    let membersWithExtraPartition = totalPartitions % memberCount;

    // Step 2: keep what fits in each member's quota. A valid target of subscribed topics that fits whole is
    // kept whole (noted in `whole`, read from the target when needed); the others are walked as Kafka does.
    const kept = scratch.int32(Ints.Kept, listedPartitions);
    const dropped = scratch.int32(Ints.Dropped, listedPartitions);
    const keptStart = scratch.int32(Ints.KeptStart, memberCount + 1);
    let keptLength = 0;
    let droppedLength = 0;
    const changed = scratch.zeroedUint8(Bytes.Changed, memberCount);
    const whole = scratch.zeroedUint8(Bytes.Whole, memberCount);
    const unfilledMembers = scratch.int32(Ints.UnfilledMembers, memberCount);
    const unfilledQuota = scratch.int32(Ints.UnfilledQuota, memberCount);
    let unfilledCount = 0;
    const validTotals = holdings.validTotals();
    for (let m = 0; m < memberCount; m++) {
      keptStart[m] = keptLength;
      let quota = minimumQuota;
      if (membersWithExtraPartition > 0) {
        quota++;
        membersWithExtraPartition--;
      }
      // The usual member of a join storm: a valid target that uses its quota exactly (kept whole, nothing left).
      if (everyTopicSubscribed && validTotals[m] === quota) {
        whole[m] = 1;
        continue;
      }
      const { target: assignment, topicIndexes, total, valid } = holdings.countedAt(m);
      // A valid target names described topics only: when all of them are subscribed, so are its topics.
      if (valid && total <= quota && (everyTopicSubscribed || allSubscribed(topicIndexes, assignment.length, subscribed))) {
        whole[m] = 1;
        quota -= total;
      } else {
        for (let entry = 0; entry < assignment.length; entry++) {
          const topicIndex = topicIndexes[entry]!;
          if (topicIndex < 0 || subscribed[topicIndex] === 0) {
            changed[m] = 1; // topic no longer subscribed: dropped
            continue;
          }
          const offset = topics.partitionOffsetAt(topicIndex);
          const count = topics.partitionCountAt(topicIndex);
          const partitions = assignment[entry]!.partitions;
          const keepWhole = partitions.length <= quota;
          if (keepWhole) quota -= partitions.length;
          for (let i = 0; i < partitions.length; i++) {
            const partition = partitions[i]!;
            if (partition < 0 || partition >= count) {
              changed[m] = 1; // not a partition of the topic (Kafka never produces one)
            } else if (keepWhole) {
              kept[keptLength++] = offset + partition;
            } else if (quota > 0) {
              quota--;
              kept[keptLength++] = offset + partition;
            } else {
              dropped[droppedLength++] = offset + partition;
              changed[m] = 1;
            }
          }
        }
      }
      if (quota > 0) {
        unfilledMembers[unfilledCount] = m;
        unfilledQuota[unfilledCount] = quota;
        unfilledCount++;
      }
    }
    keptStart[memberCount] = keptLength;

    // Step 1, after the fact: Unassigned is the subscribed partitions no current target holds, topics in
    // describer order (no pass over a topic whose partitions are all held), then the dropped ones.
    const unassigned = scratch.int32(Ints.Unassigned, totalPartitions - heldCount + droppedLength);
    let unassignedLength = 0;
    if (heldCount < totalPartitions) {
      for (let t = 0; t < topicCount; t++) {
        if (subscribed[t] === 0) continue;
        const count = topics.partitionCountAt(t);
        if (holdings.heldInTopic(t) === count) continue;
        const offset = topics.partitionOffsetAt(t);
        for (let index = offset; index < offset + count; index++) if (!holdings.isHeld(index)) unassigned[unassignedLength++] = index;
      }
    }
    for (let i = 0; i < droppedLength; i++) unassigned[unassignedLength++] = dropped[i]!;

    // Step 3: deal Unassigned in order; each unfilled member takes a contiguous run.
    const newStart = scratch.zeroedInt32(Ints.NewStart, memberCount);
    const newEnd = scratch.zeroedInt32(Ints.NewEnd, memberCount);
    let cursor = 0;
    for (let i = 0; i < unfilledCount && cursor < unassignedLength; i++) {
      const m = unfilledMembers[i]!;
      newStart[m] = cursor;
      cursor = Math.min(unassignedLength, cursor + unfilledQuota[i]!);
      newEnd[m] = cursor;
    }
    if (cursor < unassignedLength) throw new PartitionAssignorError("Partitions were left unassigned");

    const memberPartitions = scratch.int32(Ints.MemberPartitions, minimumQuota + 1);
    const result: ChangedAssignment[] = [];
    for (let m = 0; m < memberCount; m++) {
      const start = newStart[m]!;
      const end = newEnd[m]!;
      if (changed[m] !== 0 || start !== end) {
        let length = 0;
        if (whole[m] === 1) {
          length = denseIndexesOf(holdings.countedAt(m), topics, memberPartitions);
        } else {
          const keptTo = keptStart[m + 1]!;
          for (let i = keptStart[m]!; i < keptTo; i++) memberPartitions[length++] = kept[i]!;
        }
        for (let i = start; i < end; i++) memberPartitions[length++] = unassigned[i]!;
        sortPartitionIndexes(memberPartitions, 0, length);
        result.push({
          index: m,
          memberId: members[m]!.memberId,
          partitions: assignmentFromPartitionIndexes(topics, memberPartitions, 0, length),
        });
      }
    }
    return result;
  }
}

/** Whether every entry's topic is subscribed (the entries' topics are known). */
function allSubscribed(topicIndexes: Int32Array, entries: number, subscribed: Uint8Array): boolean {
  for (let entry = 0; entry < entries; entry++) if (subscribed[topicIndexes[entry]!] === 0) return false;
  return true;
}

/** Writes the dense index of every partition of a valid target into `out`, in target order; returns how many. */
function denseIndexesOf(counted: CountedTarget, topics: SubscribedTopicDescriber, out: Int32Array): number {
  const { target, topicIndexes } = counted;
  let length = 0;
  for (let entry = 0; entry < target.length; entry++) {
    const offset = topics.partitionOffsetAt(topicIndexes[entry]!);
    const partitions = target[entry]!.partitions;
    for (let i = 0; i < partitions.length; i++) out[length++] = offset + partitions[i]!;
  }
  return length;
}
