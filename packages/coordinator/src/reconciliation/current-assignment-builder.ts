import { distinctAscending, ErrorCode } from "@kcsim/protocol";
import { sameAssignment, type TopicIdPartitions, toPartitionSets } from "../topic-id-partitions.js";
import { type MemberReconciliationState, MemberState } from "./member-state.js";

/** The current epoch of a partition (its owner's member epoch), or -1 when no member owns it. */
export type CurrentPartitionEpoch = (topicId: string, partition: number) => number;

/** What reconciling one member gives. */
export type CurrentAssignmentResult<M extends MemberReconciliationState> =
  | {
      readonly kind: "reconciled";
      /** The next member state: the very input object when nothing changed. */
      readonly member: M;
    }
  | {
      readonly kind: "fenced";
      readonly errorCode: typeof ErrorCode.FENCED_MEMBER_EPOCH;
      readonly message: string;
    };

// Shared, read-only; not frozen so loops over assignments keep one V8 elements kind.
const NO_PARTITIONS: readonly TopicIdPartitions[] = [];

function toAssignment(lists: Map<string, number[]>, topicOrder: readonly string[]): TopicIdPartitions[] {
  const result: TopicIdPartitions[] = [];
  for (const topicId of topicOrder) {
    const partitions = lists.get(topicId);
    if (partitions !== undefined && partitions.length > 0) result.push({ topicId, partitions: distinctAscending(partitions) });
  }
  return result;
}

/**
 * Whether `a` lists exactly the entries of `b`, in the same order, and both
 * are in the form `toAssignment` builds: distinct topics, each with a
 * non-empty, strictly ascending partition list.
 */
function isSameCanonicalAssignment(a: readonly TopicIdPartitions[], b: readonly TopicIdPartitions[]): boolean {
  if (a.length !== b.length) return false;
  for (let entry = 0; entry < a.length; entry++) {
    const left = a[entry]!;
    const right = b[entry]!;
    if (left.topicId !== right.topicId) return false;
    const partitions = left.partitions;
    const other = right.partitions;
    if (partitions.length === 0 || partitions.length !== other.length) return false;
    for (let i = 0; i < partitions.length; i++) {
      if (partitions[i] !== other[i]) return false;
      if (i > 0 && !(partitions[i]! > partitions[i - 1]!)) return false;
    }
  }
  return distinctTopics(a);
}

/** Whether no topic id appears twice. */
function distinctTopics(assignment: readonly TopicIdPartitions[]): boolean {
  if (assignment.length > 16) return new Set(assignment.map((entry) => entry.topicId)).size === assignment.length;
  for (let entry = 1; entry < assignment.length; entry++) {
    for (let earlier = 0; earlier < entry; earlier++) if (assignment[earlier]!.topicId === assignment[entry]!.topicId) return false;
  }
  return true;
}

/**
 * The server-side reconciliation engine of KIP-848 (Kafka's
 * `CurrentAssignmentBuilder`, the 4.0 rules of spec 1.5): given a member's
 * current state and its target assignment, take the next step towards it.
 *
 * A partition is handed to its new owner only once no member owns it (its
 * partition epoch is -1); a member that must revoke stays at its epoch in
 * UNREVOKED_PARTITIONS until its heartbeat stops listing the revoked
 * partitions, then moves on at epoch + 1.
 *
 * The member is any plain object with the reconciliation fields; other
 * fields are copied through. Assignments in results list topics in target
 * order (then the member's other topics), partitions ascending.
 */
export class CurrentAssignmentBuilder<M extends MemberReconciliationState> {
  private targetAssignmentEpoch = 0;
  private targetAssignment: readonly TopicIdPartitions[] = NO_PARTITIONS;
  private currentPartitionEpoch: CurrentPartitionEpoch = () => -1;
  private ownedTopicPartitions: readonly TopicIdPartitions[] | null = null;
  private ownRevokingPartitionsFree = false;
  private revocationAssumed = false;

  constructor(private readonly member: M) {}

  /** The target assignment the member must converge to, and its epoch. */
  withTargetAssignment(epoch: number, assignment: readonly TopicIdPartitions[]): this {
    this.targetAssignmentEpoch = epoch;
    this.targetAssignment = assignment;
    return this;
  }

  /** Who owns what: the owner's epoch for every assigned or revoking partition, -1 for a free one. */
  withCurrentPartitionEpoch(currentPartitionEpoch: CurrentPartitionEpoch): this {
    this.currentPartitionEpoch = currentPartitionEpoch;
    return this;
  }

  /** The partitions the heartbeat reported as owned; null when the request did not carry them. */
  withOwnedTopicPartitions(owned: readonly TopicIdPartitions[] | null): this {
    this.ownedTopicPartitions = owned;
    return this;
  }

  /**
   * Newer Kafka (after 4.0) does not count a partition this member itself
   * still holds as pending revocation as "unreleased" when the target gives it
   * back. Off by default: spec 1.5 (4.0) counts it.
   */
  withOwnRevokingPartitionsTreatedAsFree(enabled: boolean): this {
    this.ownRevokingPartitionsFree = enabled;
    return this;
  }

  /**
   * The planted bug assign-before-revoke: treat every revocation as
   * acknowledged at once, so the revoked partitions are free for their new
   * owner before the old owner's heartbeat stopped listing them.
   */
  withRevocationAssumedAcknowledged(enabled: boolean): this {
    this.revocationAssumed = enabled;
    return this;
  }

  build(): CurrentAssignmentResult<M> {
    const member = this.member;
    switch (member.state) {
      case MemberState.STABLE:
        // Nothing to do unless a newer target exists.
        if (member.memberEpoch === this.targetAssignmentEpoch) return this.reconciled(member);
        return this.computeNextAssignment(member.memberEpoch);
      case MemberState.UNREVOKED_PARTITIONS:
        // Wait until the heartbeat stops listing every partition pending revocation.
        if (!this.revocationAssumed && this.ownsAnyOf(member.partitionsPendingRevocation)) return this.reconciled(member);
        return this.computeNextAssignment(member.memberEpoch + 1);
      case MemberState.UNRELEASED_PARTITIONS:
        return this.computeNextAssignment(member.memberEpoch);
      default:
        // A state a newer coordinator wrote: make the member drop everything and rejoin.
        if (this.ownedTopicPartitions === null || this.ownedTopicPartitions.length > 0) {
          return {
            kind: "fenced",
            errorCode: ErrorCode.FENCED_MEMBER_EPOCH,
            message: "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.",
          };
        }
        return this.computeNextAssignment(this.targetAssignmentEpoch);
    }
  }

  private reconciled(member: M): CurrentAssignmentResult<M> {
    return { kind: "reconciled", member };
  }

  /** Whether the reported owned partitions include any of `partitions`; not reported counts as owning everything. */
  private ownsAnyOf(partitions: readonly TopicIdPartitions[]): boolean {
    const owned = this.ownedTopicPartitions;
    if (owned === null) return true;
    const sets = toPartitionSets(partitions);
    for (const entry of owned) {
      const pending = sets.get(entry.topicId);
      if (pending === undefined) continue;
      for (const partition of entry.partitions) if (pending.has(partition)) return true;
    }
    return false;
  }

  /** `next(e)` of spec 1.5, per topic of target ∪ assigned. */
  private computeNextAssignment(memberEpoch: number): CurrentAssignmentResult<M> {
    const member = this.member;
    // The member already holds its target (most members at a new epoch): nothing to revoke or to assign, so
    // STABLE at the target epoch with what it holds (what the general path below would rebuild, entry for entry).
    if (isSameCanonicalAssignment(member.assignedPartitions, this.targetAssignment)) {
      return this.next(MemberState.STABLE, this.targetAssignmentEpoch, member.assignedPartitions, NO_PARTITIONS);
    }
    const target = toPartitionSets(this.targetAssignment);
    const assigned = toPartitionSets(member.assignedPartitions);
    const ownPending = toPartitionSets(member.partitionsPendingRevocation);
    const topicOrder = [...target.keys()];
    for (const topicId of assigned.keys()) if (!target.has(topicId)) topicOrder.push(topicId);

    // Lists, not sets: each comes from one pass over a set, so it holds every partition once.
    const newAssigned = new Map<string, number[]>();
    const newPendingRevocation = new Map<string, number[]>();
    const newPendingAssignment = new Map<string, number[]>();
    let hasUnreleasedPartitions = false;
    for (const topicId of topicOrder) {
      const targetPartitions = target.get(topicId);
      const currentPartitions = assigned.get(topicId);
      const keep: number[] = [];
      const revoke: number[] = [];
      if (currentPartitions !== undefined) {
        for (const partition of currentPartitions) (targetPartitions?.has(partition) === true ? keep : revoke).push(partition);
      }
      const pendingAssignment: number[] = [];
      if (targetPartitions !== undefined) {
        for (const partition of targetPartitions) {
          if (currentPartitions?.has(partition) === true) continue; // kept
          const unreleased =
            this.currentPartitionEpoch(topicId, partition) !== -1 &&
            !(this.ownRevokingPartitionsFree && ownPending.get(topicId)?.has(partition));
          if (unreleased) hasUnreleasedPartitions = true;
          else pendingAssignment.push(partition);
        }
      }
      newAssigned.set(topicId, keep);
      newPendingRevocation.set(topicId, revoke);
      newPendingAssignment.set(topicId, pendingAssignment);
    }

    const revocations = toAssignment(newPendingRevocation, topicOrder);
    if (revocations.length > 0 && !this.revocationAssumed && this.ownsAnyOf(revocations)) {
      // Revoke first: stay at the epoch until the member lets go.
      return this.next(MemberState.UNREVOKED_PARTITIONS, memberEpoch, toAssignment(newAssigned, topicOrder), revocations);
    }
    const pendingAssignments = toAssignment(newPendingAssignment, topicOrder);
    if (pendingAssignments.length > 0) {
      // None of them is kept already (a kept partition is never pending assignment).
      for (const { topicId, partitions } of pendingAssignments)
        for (const partition of partitions) newAssigned.get(topicId)?.push(partition);
    }
    // Everything revoked is released: move to the target epoch, waiting for unreleased partitions if any.
    const state = hasUnreleasedPartitions ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
    return this.next(state, this.targetAssignmentEpoch, toAssignment(newAssigned, topicOrder), NO_PARTITIONS);
  }

  /** The member with its new state; `updateMemberEpoch` semantics (previous := current). Same object when equal. */
  private next(
    state: MemberState,
    memberEpoch: number,
    assignedPartitions: readonly TopicIdPartitions[],
    partitionsPendingRevocation: readonly TopicIdPartitions[],
  ): CurrentAssignmentResult<M> {
    const member = this.member;
    const previousMemberEpoch = member.memberEpoch;
    if (
      member.state === state &&
      member.memberEpoch === memberEpoch &&
      member.previousMemberEpoch === previousMemberEpoch &&
      sameAssignment(member.assignedPartitions, assignedPartitions) &&
      sameAssignment(member.partitionsPendingRevocation, partitionsPendingRevocation)
    ) {
      return this.reconciled(member);
    }
    return this.reconciled({ ...member, state, memberEpoch, previousMemberEpoch, assignedPartitions, partitionsPendingRevocation });
  }
}
