import type { OffsetCommitObservation } from "./observations.js";

/** One partition of a gc.offset-commit, with the commit's group, member and epoch. */
export interface CommittedPartition {
  readonly groupId: string;
  readonly memberId: string;
  readonly epoch: number;
  readonly transactional: boolean;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly errorCode: number;
}

/** Every partition of a gc.offset-commit, in the request's order, one entry each (for tests and tools: checkers walk `topics` themselves). */
export function committedPartitions(commit: OffsetCommitObservation): CommittedPartition[] {
  const partitions: CommittedPartition[] = [];
  for (const topic of commit.topics)
    for (let i = 0; i < topic.partitions.length; i++)
      partitions.push({
        groupId: commit.groupId,
        memberId: commit.memberId,
        epoch: commit.epoch,
        transactional: commit.transactional,
        topic: topic.topic,
        partition: topic.partitions[i] as number,
        offset: topic.offsets[i] as number,
        errorCode: topic.errorCodes[i] as number,
      });
  return partitions;
}
