import { ErrorCode } from "@kcsim/protocol";
import { type TopicIdPartitions, toPartitionSets } from "../topic-id-partitions.js";

/** The outcome of checking a heartbeat's member epoch. */
export type MemberEpochValidation =
  | { readonly ok: true }
  | { readonly ok: false; readonly errorCode: typeof ErrorCode.FENCED_MEMBER_EPOCH; readonly message: string };

/** What the epoch check needs to know about the stored member. */
export interface StoredMemberEpochs {
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly assignedPartitions: readonly TopicIdPartitions[];
}

function isSubset(owned: readonly TopicIdPartitions[], assigned: readonly TopicIdPartitions[]): boolean {
  const sets = toPartitionSets(assigned);
  for (const entry of owned) {
    const partitions = sets.get(entry.topicId);
    if (partitions === undefined) return false;
    for (const partition of entry.partitions) if (!partitions.has(partition)) return false;
  }
  return true;
}

/**
 * The member epoch check of a consumer-group heartbeat (GMM
 * `throwIfMemberEpochIsInvalid`, spec 1.3): a greater epoch than stored is
 * fenced; a smaller one is accepted only when it is the previous epoch and
 * the request lists owned partitions that are all still assigned (the
 * member lost the response that bumped its epoch). Also applies to epoch 0
 * when the member id still exists.
 */
export function validateMemberEpoch(
  receivedMemberEpoch: number,
  member: StoredMemberEpochs,
  ownedTopicPartitions: readonly TopicIdPartitions[] | null,
): MemberEpochValidation {
  if (receivedMemberEpoch > member.memberEpoch) {
    return {
      ok: false,
      errorCode: ErrorCode.FENCED_MEMBER_EPOCH,
      message: `The consumer group member has a greater member epoch (${receivedMemberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    };
  }
  if (receivedMemberEpoch < member.memberEpoch) {
    if (
      receivedMemberEpoch !== member.previousMemberEpoch ||
      ownedTopicPartitions === null ||
      !isSubset(ownedTopicPartitions, member.assignedPartitions)
    ) {
      return {
        ok: false,
        errorCode: ErrorCode.FENCED_MEMBER_EPOCH,
        message: `The consumer group member has a smaller member epoch (${receivedMemberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      };
    }
  }
  return { ok: true };
}
