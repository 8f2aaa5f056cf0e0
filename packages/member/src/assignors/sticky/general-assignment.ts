import type { TopicPartition } from "@kcsim/protocol";
import type { AssignorSubscription } from "../consumer-partition-assignor.js";
import { compareJavaStrings, keyOf, partitionsOf } from "../topic-partitions.js";
import type { StickyAssignment } from "./constrained-assignment.js";
import { ConsumersByAssignmentSize } from "./consumers-by-assignment-size.js";
import type { OwnershipClaims } from "./ownership-claims.js";
import { PartitionMovements } from "./partition-movements.js";
import { DEFAULT_GENERATION, type StickyMemberData } from "./sticky-user-data.js";

/** The owner of a partition in the newest generation older than the current one. */
interface PreviousOwner {
  readonly consumer: string;
  readonly generation: number;
}

function balanceScore(assignment: ReadonlyMap<string, readonly TopicPartition[]>): number {
  const sizes = [...assignment.values()].map((list) => list.length);
  let score = 0;
  for (let i = 0; i < sizes.length; i++) {
    for (let j = i + 1; j < sizes.length; j++) score += Math.abs((sizes[i] ?? 0) - (sizes[j] ?? 0));
  }
  return score;
}

function removeFirst(list: TopicPartition[] | undefined, key: string): void {
  const index = list?.findIndex((tp) => keyOf(tp) === key) ?? -1;
  if (index >= 0) list?.splice(index, 1);
}

/**
 * `AbstractStickyAssignor.GeneralAssignmentBuilder` (non-rack-aware), used
 * when subscriptions differ: keep every valid owned partition, hand out the
 * rest one by one to the least loaded eligible member, then move partitions
 * from members holding 2+ more than an eligible other until balanced
 * (preferring to send a partition back to its previous-generation owner),
 * and keep the result only if it improves the balance score.
 *
 * One deviation: a previous-generation owner that no longer subscribes to
 * the partition's topic does not get it back (Kafka hands it over anyway).
 */
export function generalAssignment(
  partitionCounts: ReadonlyMap<string, number>,
  subscriptions: readonly AssignorSubscription[],
  claims: OwnershipClaims,
  memberData: ReadonlyMap<string, StickyMemberData>,
): StickyAssignment {
  return new GeneralAssignmentBuilder(partitionCounts, subscriptions, claims, memberData).build();
}

class GeneralAssignmentBuilder {
  private readonly topicsOfConsumer = new Map<string, string[]>();
  private readonly consumersOfTopic = new Map<string, string[]>();
  private readonly currentAssignment = new Map<string, TopicPartition[]>();
  private currentPartitionConsumer = new Map<string, string>();
  private readonly sortedAllPartitions: TopicPartition[];
  private readonly bySize: ConsumersByAssignmentSize;
  private readonly movements = new PartitionMovements();
  private revocationRequired = false;

  constructor(
    private readonly partitionCounts: ReadonlyMap<string, number>,
    private readonly subscriptions: readonly AssignorSubscription[],
    private readonly claims: OwnershipClaims,
    private readonly memberData: ReadonlyMap<string, StickyMemberData>,
  ) {
    for (const topic of partitionCounts.keys()) this.consumersOfTopic.set(topic, []);
    for (const subscription of subscriptions) {
      const topics = [...new Set(subscription.topics)].filter((topic) => partitionCounts.has(topic));
      this.topicsOfConsumer.set(subscription.memberId, topics);
      for (const topic of topics) this.consumersOfTopic.get(topic)?.push(subscription.memberId);
      this.currentAssignment.set(subscription.memberId, [...(claims.ownedByMember.get(subscription.memberId) ?? [])]);
    }
    for (const [consumer, partitions] of this.currentAssignment) {
      for (const tp of partitions) this.currentPartitionConsumer.set(keyOf(tp), consumer);
    }
    // Topics with fewer potential consumers first, then by name.
    const sortedTopics = [...this.consumersOfTopic.keys()].sort(
      (a, b) => this.consumersOf(a).length - this.consumersOf(b).length || compareJavaStrings(a, b),
    );
    this.sortedAllPartitions = sortedTopics.flatMap((topic) => partitionsOf(topic, partitionCounts.get(topic) ?? 0));
    this.bySize = new ConsumersByAssignmentSize((member) => this.sizeOf(member));
  }

  private consumersOf(topic: string): readonly string[] {
    return this.consumersOfTopic.get(topic) ?? [];
  }

  private topicsOf(consumer: string): readonly string[] {
    return this.topicsOfConsumer.get(consumer) ?? [];
  }

  private sizeOf(consumer: string): number {
    return this.currentAssignment.get(consumer)?.length ?? 0;
  }

  build(): StickyAssignment {
    const previousOwners = this.previousOwners();
    const assignedKeys = this.keepOwnedPartitions();
    const unassigned = this.sortedAllPartitions.filter((tp) => !assignedKeys.has(keyOf(tp)));
    for (const consumer of this.currentAssignment.keys()) this.bySize.add(consumer);
    this.balance(previousOwners, unassigned);
    const assignment = new Map(this.subscriptions.map((s) => [s.memberId, this.currentAssignment.get(s.memberId) ?? []]));
    return { assignment, partitionsTransferringOwnership: null };
  }

  /**
   * `prepopulateCurrentAssignments`: partitions claimed by members of an older
   * generation (or of none, once some member has one); for each, the newest
   * such claim, the first one on a tie.
   */
  private previousOwners(): Map<string, PreviousOwner> {
    const previous = new Map<string, PreviousOwner>();
    const maxGeneration = this.claims.maxGeneration;
    for (const subscription of this.subscriptions) {
      const data = this.memberData.get(subscription.memberId);
      if (data === undefined) continue;
      let generation: number;
      if (data.generation !== null && data.generation < maxGeneration) generation = data.generation;
      else if (data.generation === null && maxGeneration > DEFAULT_GENERATION) generation = DEFAULT_GENERATION;
      else continue;
      for (const tp of data.partitions) {
        const existing = previous.get(keyOf(tp));
        if (existing === undefined || generation > existing.generation) {
          previous.set(keyOf(tp), { consumer: subscription.memberId, generation });
        }
      }
    }
    return previous;
  }

  /** `assignOwnedPartitions`: drops owned partitions of topics the owner no longer subscribes to. */
  private keepOwnedPartitions(): Set<string> {
    const assigned = new Set<string>();
    const subscribed = new Map(this.subscriptions.map((s) => [s.memberId, new Set(s.topics)]));
    for (const [consumer, partitions] of this.currentAssignment) {
      const kept: TopicPartition[] = [];
      for (const tp of partitions) {
        if (!this.consumersOfTopic.has(tp.topic)) {
          this.currentPartitionConsumer.delete(keyOf(tp));
        } else if (!subscribed.get(consumer)?.has(tp.topic)) {
          this.revocationRequired = true;
        } else {
          kept.push(tp);
          assigned.add(keyOf(tp));
        }
      }
      this.currentAssignment.set(consumer, kept);
    }
    return assigned;
  }

  private balance(previousOwners: ReadonlyMap<string, PreviousOwner>, unassigned: TopicPartition[]): void {
    const largest = this.bySize.last();
    const initializing = largest === undefined || this.sizeOf(largest) === 0;

    for (const tp of unassigned) {
      if (this.consumersOf(tp.topic).length > 0) this.assignToLeastLoaded(tp);
    }

    // Only topics with 2+ potential consumers, and members that could gain or lose, take part.
    const movable = (tp: TopicPartition): boolean => this.consumersOf(tp.topic).length >= 2;
    const reassignablePartitions = this.sortedAllPartitions.filter(movable);
    const newlyAssigned = unassigned.filter(movable);
    const fixedAssignments = new Map<string, TopicPartition[]>();
    for (const consumer of this.topicsOfConsumer.keys()) {
      if (!this.canParticipate(consumer)) {
        this.bySize.remove(consumer);
        fixedAssignments.set(consumer, this.currentAssignment.get(consumer) ?? []);
        this.currentAssignment.delete(consumer);
      }
    }

    const preBalanceAssignment = new Map([...this.currentAssignment].map(([c, list]) => [c, [...list]]));
    const preBalancePartitionConsumer = new Map(this.currentPartitionConsumer);

    // Without forced revocations, first try to balance by moving only the newly assigned partitions.
    if (!this.revocationRequired) this.performReassignments(newlyAssigned, previousOwners);
    const reassigned = this.performReassignments(reassignablePartitions, previousOwners);

    if (!initializing && reassigned && balanceScore(this.currentAssignment) >= balanceScore(preBalanceAssignment)) {
      this.currentAssignment.clear();
      for (const [consumer, list] of preBalanceAssignment) this.currentAssignment.set(consumer, [...list]);
      this.currentPartitionConsumer = preBalancePartitionConsumer;
    }
    // The size-ordered set is not used past this point, so fixed members only rejoin the assignment.
    for (const [consumer, list] of fixedAssignments) this.currentAssignment.set(consumer, list);
  }

  private assignToLeastLoaded(tp: TopicPartition): void {
    for (const consumer of this.bySize.members()) {
      if (this.topicsOf(consumer).includes(tp.topic)) {
        this.bySize.remove(consumer);
        this.currentAssignment.get(consumer)?.push(tp);
        this.currentPartitionConsumer.set(keyOf(tp), consumer);
        this.bySize.add(consumer);
        return;
      }
    }
  }

  private maxAssignmentSize(consumer: string): number {
    return this.topicsOf(consumer).reduce((sum, topic) => sum + (this.partitionCounts.get(topic) ?? 0), 0);
  }

  private canParticipate(consumer: string): boolean {
    const partitions = this.currentAssignment.get(consumer) ?? [];
    if (partitions.length < this.maxAssignmentSize(consumer)) return true;
    return partitions.some((tp) => this.consumersOf(tp.topic).length >= 2);
  }

  /** Balanced: sizes differ by at most one, or no member could take a partition from one holding 2+ more. */
  private isBalanced(): boolean {
    const first = this.bySize.first();
    const last = this.bySize.last();
    if (first === undefined || last === undefined || this.sizeOf(first) >= this.sizeOf(last) - 1) return true;

    const ownerOf = new Map<string, string>();
    for (const [consumer, partitions] of this.currentAssignment) {
      for (const tp of partitions) ownerOf.set(keyOf(tp), consumer);
    }
    for (const consumer of this.bySize.members()) {
      const size = this.sizeOf(consumer);
      if (size === this.maxAssignmentSize(consumer)) continue;
      for (const topic of this.topicsOf(consumer)) {
        for (const tp of partitionsOf(topic, this.partitionCounts.get(topic) ?? 0)) {
          const owner = ownerOf.get(keyOf(tp));
          if (owner !== undefined && owner !== consumer && size + 1 < this.sizeOf(owner)) return false;
        }
      }
    }
    return true;
  }

  private performReassignments(partitions: readonly TopicPartition[], previousOwners: ReadonlyMap<string, PreviousOwner>): boolean {
    let reassignmentPerformed = false;
    let modified: boolean;
    do {
      modified = false;
      for (const tp of partitions) {
        if (this.isBalanced()) break;
        const consumer = this.currentPartitionConsumer.get(keyOf(tp));
        if (consumer === undefined) continue;
        const size = this.sizeOf(consumer);

        const previous = previousOwners.get(keyOf(tp));
        // Deviation: Kafka sends the partition back even to a previous owner that no longer
        // subscribes to its topic (an invalid assignment); such owners, and owners fixed out of
        // the balancing (where Kafka would throw), are skipped.
        if (
          previous !== undefined &&
          this.currentAssignment.has(previous.consumer) &&
          this.topicsOf(previous.consumer).includes(tp.topic) &&
          size > this.sizeOf(previous.consumer) + 1
        ) {
          this.reassignPartitionTo(tp, previous.consumer);
          reassignmentPerformed = modified = true;
          continue;
        }
        if (this.consumersOf(tp.topic).some((other) => size > this.sizeOf(other) + 1)) {
          this.reassignPartition(tp);
          reassignmentPerformed = modified = true;
        }
      }
    } while (modified);
    return reassignmentPerformed;
  }

  /** Moves `tp` to the least loaded member subscribed to its topic. */
  private reassignPartition(tp: TopicPartition): void {
    const target = this.bySize.members().find((consumer) => this.topicsOf(consumer).includes(tp.topic));
    if (target !== undefined) this.reassignPartitionTo(tp, target);
  }

  private reassignPartitionTo(tp: TopicPartition, newConsumer: string): void {
    const consumer = this.currentPartitionConsumer.get(keyOf(tp)) ?? newConsumer;
    this.processPartitionMovement(this.movements.actualPartitionToMove(tp, consumer, newConsumer), newConsumer);
  }

  private processPartitionMovement(tp: TopicPartition, newConsumer: string): void {
    const key = keyOf(tp);
    const oldConsumer = this.currentPartitionConsumer.get(key);
    if (oldConsumer === undefined) return;
    this.bySize.remove(oldConsumer);
    this.bySize.remove(newConsumer);
    this.movements.movePartition(tp, oldConsumer, newConsumer);
    removeFirst(this.currentAssignment.get(oldConsumer), key);
    this.currentAssignment.get(newConsumer)?.push(tp);
    this.currentPartitionConsumer.set(key, newConsumer);
    this.bySize.add(newConsumer);
    this.bySize.add(oldConsumer);
  }
}
