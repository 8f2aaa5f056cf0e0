import { ErrorCode } from "@kcsim/protocol";
import { type ChangedAssignment, changedAssignments } from "../assignors/changed-assignments.js";
import { PartitionAssignorError } from "../assignors/partition-assignor-error.js";
import { ScratchArrays } from "../assignors/scratch-arrays.js";
import { serverAssignorNamed } from "../assignors/server-assignors.js";
import type { SubscribedTopicDescriber } from "../assignors/subscribed-topic-describer.js";
import { targetAssignmentMetadataRecord, targetAssignmentRecord } from "../records/consumer-group-records.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import { targetObservation } from "../runtime/observation-builders.js";
import type { WriteOp } from "../runtime/write-op.js";
import { countPartitions, type TopicIdPartitions, toPartitionSets } from "../topic-id-partitions.js";
import type { ConsumerGroup } from "./consumer-group.js";

/**
 * Computes the target assignment at the group epoch (Kafka's
 * `updateTargetAssignment` + `TargetAssignmentBuilder`, spec 1.3 step 6):
 * the preferred ServerAssignor (most requested, else the first of
 * group.consumer.assignors) runs over every member in join order with its
 * current target; a TargetAssignmentMember record is written for each
 * member whose target changed, then TargetAssignmentMetadata. An assignor
 * failure is UNKNOWN_SERVER_ERROR.
 */
export function updateTargetAssignment(op: WriteOp, group: ConsumerGroup, configuredAssignors: readonly string[]): void {
  const epoch = group.groupEpoch;
  const assignorName = group.preferredServerAssignor(configuredAssignors) ?? configuredAssignors[0];
  const assignor = assignorName === undefined ? undefined : serverAssignorNamed(assignorName);
  if (assignor === undefined) throw new CoordinatorError(ErrorCode.UNKNOWN_SERVER_ERROR, `No server assignor named ${assignorName}.`);

  // Kept by the group between assignments; records written below change it, so it is read before them.
  const specs = group.assignmentSpecs();

  let changes: readonly ChangedAssignment[];
  try {
    changes = changedAssignments(assignor, { members: specs, subscriptionType: group.subscriptionType() }, group.describer());
  } catch (error) {
    if (!(error instanceof PartitionAssignorError)) throw error;
    throw new CoordinatorError(
      ErrorCode.UNKNOWN_SERVER_ERROR,
      `Failed to compute a new target assignment for epoch ${epoch}: ${error.message}`,
    );
  }

  // Only members whose target array changed (the others keep theirs). The records replayed here only mark
  // specs as stale: `specs` stays as the assignor saw it.
  let moved = 0;
  const gained = new GainedCounter(group.describer());
  for (const { index, partitions } of changes) {
    const spec = specs[index]!;
    const newOwners = gained.count(spec.currentAssignment, partitions);
    if (newOwners === 0 && countPartitions(partitions) === countPartitions(spec.currentAssignment)) continue;
    moved += newOwners;
    op.append(targetAssignmentRecord(group.groupId, spec.memberId, partitions));
  }
  op.append(targetAssignmentMetadataRecord(group.groupId, epoch));
  op.observe(targetObservation(group.groupId, epoch, assignor.name, specs.length, moved));
}

/** The marks of GainedCounter (one update at a time uses them). */
const scratch = new ScratchArrays();

/**
 * Counts the partitions in `next` that were not in `previous` (each one has
 * a new target owner). Partitions of the described topics are marked in a
 * dense scratch array (cleared after each count), found through the
 * describer's topic indexes of each target array (cached per array: the
 * next assignment asks for the same ones); anything else (a topic or
 * partition the describer does not know) falls back to sets.
 */
class GainedCounter {
  readonly #describer: SubscribedTopicDescriber;
  readonly #marked: Uint8Array;

  constructor(describer: SubscribedTopicDescriber) {
    this.#describer = describer;
    this.#marked = scratch.zeroedUint8(0, describer.totalPartitions);
  }

  count(previous: readonly TopicIdPartitions[], next: readonly TopicIdPartitions[]): number {
    const describer = this.#describer;
    const previousTopics = describer.topicIndexesOf(previous);
    const nextTopics = describer.topicIndexesOf(next);
    if (!this.#dense(previous, previousTopics) || !this.#dense(next, nextTopics)) return countGainedWithSets(previous, next);
    this.#mark(previous, previousTopics, 1);
    let gained = 0;
    for (let entry = 0; entry < next.length; entry++) {
      const offset = describer.partitionOffsetAt(nextTopics[entry]!);
      const partitions = next[entry]!.partitions;
      for (let i = 0; i < partitions.length; i++) if (this.#marked[offset + partitions[i]!] === 0) gained++;
    }
    this.#mark(previous, previousTopics, 0);
    return gained;
  }

  /** Whether every partition of the assignment has a dense index. */
  #dense(assignment: readonly TopicIdPartitions[], topicIndexes: Int32Array): boolean {
    for (let entry = 0; entry < assignment.length; entry++) {
      const topicIndex = topicIndexes[entry]!;
      if (topicIndex < 0) return false;
      const count = this.#describer.partitionCountAt(topicIndex);
      const partitions = assignment[entry]!.partitions;
      for (let i = 0; i < partitions.length; i++) {
        const partition = partitions[i]!;
        if (!Number.isInteger(partition) || partition < 0 || partition >= count) return false;
      }
    }
    return true;
  }

  #mark(assignment: readonly TopicIdPartitions[], topicIndexes: Int32Array, value: 0 | 1): void {
    const describer = this.#describer;
    for (let entry = 0; entry < assignment.length; entry++) {
      const offset = describer.partitionOffsetAt(topicIndexes[entry]!);
      const partitions = assignment[entry]!.partitions;
      for (let i = 0; i < partitions.length; i++) this.#marked[offset + partitions[i]!] = value;
    }
  }
}

/** Partitions in `next` that were not in `previous`, with sets. */
function countGainedWithSets(previous: readonly TopicIdPartitions[], next: readonly TopicIdPartitions[]): number {
  const before = toPartitionSets(previous);
  let gained = 0;
  for (const { topicId, partitions } of next) {
    const had = before.get(topicId);
    for (const partition of partitions) if (had === undefined || !had.has(partition)) gained++;
  }
  return gained;
}
