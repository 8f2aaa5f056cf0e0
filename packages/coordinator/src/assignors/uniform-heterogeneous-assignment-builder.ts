import type { TopicIdPartitions } from "../topic-id-partitions.js";
import { emptyGroupAssignment, type GroupAssignment, type MemberAssignment } from "./group-assignment.js";
import type { GroupSpec } from "./group-spec.js";
import { MemberAssignmentBalancer } from "./member-assignment-balancer.js";
import { missingTopicError } from "./partition-assignor-error.js";
import { assignmentFromPartitionIndexes } from "./partition-index-assignment.js";
import type { SubscribedTopicDescriber } from "./subscribed-topic-describer.js";

/** Topic indexes of a subscription, duplicates dropped (`seen[t] === stamp`); throws for a missing topic. */
function resolveSubscription(
  subscription: readonly string[],
  topics: SubscribedTopicDescriber,
  seen: Int32Array,
  stamp: number,
): Int32Array {
  const indexes: number[] = [];
  for (const topicId of subscription) {
    const topicIndex = topics.topicIndex(topicId);
    if (topicIndex < 0) throw missingTopicError(topicId);
    if (seen[topicIndex] === stamp) continue;
    seen[topicIndex] = stamp;
    indexes.push(topicIndex);
  }
  return Int32Array.from(indexes);
}

/** Kafka's cap on balancing passes over the topics. */
const MAX_ITERATION_COUNT = 16;

/**
 * The uniform assignor for a group whose members subscribe to different
 * topics (Kafka's `UniformHeterogeneousAssignmentBuilder` after KAFKA-17710;
 * spec 3):
 *
 * 1. Members are numbered by spec order; partitions of topics a member no
 *    longer subscribes to are dropped, everything else is kept.
 * 2. Topics are ordered by partitions per subscriber descending, then
 *    subscriber count ascending, then topic id (`Uuid.compareTo`).
 * 3. Per topic, its unassigned partitions (ascending) are dealt over the
 *    least loaded range of its subscribers (`MemberAssignmentBalancer`).
 * 4. Up to 16 balancing passes over the topics with two or more subscribers,
 *    stopping after a full pass without moves: per topic, while its
 *    subscribers' totals differ by more than one, the last partition (by
 *    owner index, then number) of the next most loaded subscriber that still
 *    owns some of the topic moves to the next least loaded subscriber.
 */
export class UniformHeterogeneousAssignmentBuilder {
  private readonly memberCount: number;
  /** Subscribers of topic t: `subscribers[subscriberStart[t] .. subscriberStart[t + 1])`, ascending member index. */
  private readonly subscriberStart: Int32Array;
  private readonly subscribers: Int32Array;
  /** Topics of member m: `memberTopics[memberTopicStart[m] .. memberTopicStart[m + 1])`. */
  private readonly memberTopicStart: Int32Array;
  private readonly memberTopics: Int32Array;
  /** Owner (member index) of every dense partition index, -1 when unassigned. */
  private readonly owners: Int32Array;
  /** Number of partitions each member is assigned in the new target. */
  private readonly sizes: Int32Array;
  /** Members whose target differs (or may differ) from their current one. */
  private readonly changed: Uint8Array;
  private readonly balancer: MemberAssignmentBalancer;

  // Scratch for balanceTopic.
  private partitionKeys = new Float64Array(0);
  private partitionOrder = new Int32Array(0);
  private readonly rangeStart: Int32Array;
  private readonly rangeEnd: Int32Array;
  private readonly rangeStamp: Int32Array;
  private stamp = 0;

  constructor(
    private readonly groupSpec: GroupSpec,
    private readonly topics: SubscribedTopicDescriber,
  ) {
    const members = groupSpec.members;
    const topicCount = topics.topics.length;
    const memberCount = members.length;
    this.memberCount = memberCount;

    // Subscriptions as topic indexes, duplicates dropped; missing topics throw.
    let subscriptionCount = 0;
    for (const member of members) subscriptionCount += member.subscribedTopicIds.length;
    const memberTopicStart = new Int32Array(memberCount + 1);
    const memberTopics = new Int32Array(subscriptionCount);
    const subscriberCount = new Int32Array(topicCount);
    // Members usually share subscription arrays: resolve each distinct array once.
    const resolved = new Map<readonly string[], Int32Array>();
    const seen = new Int32Array(topicCount).fill(-1);
    let length = 0;
    for (let m = 0; m < memberCount; m++) {
      memberTopicStart[m] = length;
      const subscription = members[m]!.subscribedTopicIds;
      let topicIndexes = resolved.get(subscription);
      if (topicIndexes === undefined) {
        topicIndexes = resolveSubscription(subscription, topics, seen, resolved.size);
        resolved.set(subscription, topicIndexes);
      }
      memberTopics.set(topicIndexes, length);
      length += topicIndexes.length;
      for (const topicIndex of topicIndexes) subscriberCount[topicIndex]!++;
    }
    memberTopicStart[memberCount] = length;
    this.memberTopicStart = memberTopicStart;
    this.memberTopics = memberTopics;

    const subscriberStart = new Int32Array(topicCount + 1);
    for (let t = 0; t < topicCount; t++) subscriberStart[t + 1] = subscriberStart[t]! + subscriberCount[t]!;
    const subscribers = new Int32Array(length);
    const fill = subscriberStart.slice(0, topicCount);
    for (let m = 0; m < memberCount; m++) {
      for (let i = memberTopicStart[m]!; i < memberTopicStart[m + 1]!; i++) subscribers[fill[memberTopics[i]!]!++] = m;
    }
    this.subscriberStart = subscriberStart;
    this.subscribers = subscribers;

    this.owners = new Int32Array(topics.totalPartitions).fill(-1);
    this.sizes = new Int32Array(memberCount);
    this.changed = new Uint8Array(memberCount);
    this.balancer = new MemberAssignmentBalancer(this.sizes);
    this.rangeStart = new Int32Array(memberCount);
    this.rangeEnd = new Int32Array(memberCount);
    this.rangeStamp = new Int32Array(memberCount);
  }

  build(): GroupAssignment {
    const members = this.groupSpec.members;
    const subscribedTopics: number[] = [];
    for (let t = 0; t < this.topics.topics.length; t++) if (this.subscriberCountOf(t) > 0) subscribedTopics.push(t);
    if (subscribedTopics.length === 0) return emptyGroupAssignment(members);

    this.keepSubscribedPartitions();
    this.assignRemainingPartitions(subscribedTopics);
    this.balance(subscribedTopics.filter((t) => this.subscriberCountOf(t) >= 2));
    return this.result(subscribedTopics);
  }

  private subscriberCountOf(topicIndex: number): number {
    return this.subscriberStart[topicIndex + 1]! - this.subscriberStart[topicIndex]!;
  }

  /** Step 1 (Kafka's `maybeRevokePartitions`). */
  private keepSubscribedPartitions(): void {
    const members = this.groupSpec.members;
    const topics = this.topics;
    const subscribedBy = new Int32Array(topics.topics.length).fill(-1);
    for (let m = 0; m < this.memberCount; m++) {
      for (let i = this.memberTopicStart[m]!; i < this.memberTopicStart[m + 1]!; i++) subscribedBy[this.memberTopics[i]!] = m;
      for (const topicPartitions of members[m]!.currentAssignment) {
        const topicIndex = topics.topicIndex(topicPartitions.topicId);
        if (topicIndex < 0 || subscribedBy[topicIndex] !== m) {
          this.changed[m] = 1; // no longer subscribed: the whole topic is dropped
          continue;
        }
        const offset = topics.partitionOffsetAt(topicIndex);
        const count = topics.partitionCountAt(topicIndex);
        for (const partition of topicPartitions.partitions) {
          if (partition < 0 || partition >= count) {
            this.changed[m] = 1;
            continue;
          }
          this.owners[offset + partition] = m;
          this.sizes[m]!++;
        }
      }
    }
  }

  /** Kafka's topic comparator: partitions per subscriber desc, subscribers asc, topic id asc. */
  private sortTopics(topicIndexes: number[]): number[] {
    const topics = this.topics;
    const ranks = topics.topicIdRanks();
    return topicIndexes.sort((a, b) => {
      const subscribersA = this.subscriberCountOf(a);
      const subscribersB = this.subscriberCountOf(b);
      const ratioA = topics.partitionCountAt(a) / subscribersA;
      const ratioB = topics.partitionCountAt(b) / subscribersB;
      if (ratioA !== ratioB) return ratioA > ratioB ? -1 : 1;
      if (subscribersA !== subscribersB) return subscribersA - subscribersB;
      return ranks[a]! - ranks[b]!;
    });
  }

  /** Steps 2 and 3. */
  private assignRemainingPartitions(subscribedTopics: readonly number[]): void {
    const topics = this.topics;
    const owners = this.owners;
    const withUnassigned = subscribedTopics.filter((t) => {
      const offset = topics.partitionOffsetAt(t);
      const end = offset + topics.partitionCountAt(t);
      for (let index = offset; index < end; index++) if (owners[index] === -1) return true;
      return false;
    });
    for (const t of this.sortTopics(withUnassigned)) {
      this.balancer.initialize(this.subscribers, this.subscriberStart[t]!, this.subscriberStart[t + 1]!);
      const offset = topics.partitionOffsetAt(t);
      const end = offset + topics.partitionCountAt(t);
      for (let index = offset; index < end; index++) {
        if (owners[index] === -1) this.assignPartition(index, this.balancer.nextLeastLoaded());
      }
    }
  }

  /** Step 4 (Kafka's `balanceTopics`). */
  private balance(balancedTopics: number[]): void {
    if (balancedTopics.length === 0) return;
    const sorted = this.sortTopics(balancedTopics);
    // The last topic that moved something; a full pass back to it without moves ends the loop.
    let lastRebalanceTopicIndex = -1;
    for (let iteration = 0; iteration < MAX_ITERATION_COUNT; iteration++) {
      for (let topicIndex = 0; topicIndex < sorted.length; topicIndex++) {
        if (topicIndex === lastRebalanceTopicIndex) return;
        const moved = this.balanceTopic(sorted[topicIndex]!);
        if (moved > 0 || lastRebalanceTopicIndex === -1) lastRebalanceTopicIndex = topicIndex;
      }
    }
  }

  /** Moves partitions of one topic from its most to its least loaded subscribers; returns how many moved. */
  private balanceTopic(topicIndex: number): number {
    const balancer = this.balancer;
    const imbalance = balancer.initialize(this.subscribers, this.subscriberStart[topicIndex]!, this.subscriberStart[topicIndex + 1]!);
    if (imbalance <= 1) return 0;

    const owners = this.owners;
    const offset = this.topics.partitionOffsetAt(topicIndex);
    const count = this.topics.partitionCountAt(topicIndex);
    if (this.partitionKeys.length < count) {
      this.partitionKeys = new Float64Array(count);
      this.partitionOrder = new Int32Array(count);
    }
    // Partitions grouped by owner, then by number; each owner's run is [rangeStart, rangeEnd).
    const keys = this.partitionKeys.subarray(0, count);
    for (let partition = 0; partition < count; partition++) keys[partition] = owners[offset + partition]! * count + partition;
    keys.sort();
    const order = this.partitionOrder;
    const stamp = ++this.stamp;
    for (let i = 0; i < count; i++) {
      const key = keys[i]!;
      const owner = Math.floor(key / count);
      order[i] = key - owner * count;
      if (this.rangeStamp[owner] !== stamp) {
        this.rangeStamp[owner] = stamp;
        this.rangeStart[owner] = i;
      }
      this.rangeEnd[owner] = i + 1;
    }

    let moved = 0;
    while (!balancer.isBalanced()) {
      let mostLoaded = -1;
      for (;;) {
        mostLoaded = balancer.nextMostLoaded();
        if (mostLoaded === -1) break;
        if (this.rangeStamp[mostLoaded] !== stamp || this.rangeEnd[mostLoaded]! - this.rangeStart[mostLoaded]! <= 0) {
          balancer.excludeMostLoaded();
          continue;
        }
        break;
      }
      if (mostLoaded === -1) break;

      const end = --this.rangeEnd[mostLoaded]!;
      const partition = order[end]!;
      const leastLoaded = balancer.nextLeastLoaded();
      // Both ranges' levels within one: moving would not improve the balance.
      if (balancer.isBalanced()) break;
      this.assignPartition(offset + partition, leastLoaded);
      moved++;
    }
    return moved;
  }

  private assignPartition(partitionIndex: number, member: number): void {
    const previous = this.owners[partitionIndex]!;
    if (previous !== -1) {
      this.sizes[previous]!--;
      this.changed[previous] = 1;
    }
    this.owners[partitionIndex] = member;
    this.sizes[member]!++;
    this.changed[member] = 1;
  }

  /** Unchanged members keep their current assignment object; the others are rebuilt from `owners`. */
  private result(subscribedTopics: readonly number[]): GroupAssignment {
    const members = this.groupSpec.members;
    const topics = this.topics;
    const owners = this.owners;
    const changed = this.changed;
    const memberCount = this.memberCount;
    const start = new Int32Array(memberCount + 1);
    for (const t of subscribedTopics) {
      const offset = topics.partitionOffsetAt(t);
      const end = offset + topics.partitionCountAt(t);
      for (let index = offset; index < end; index++) {
        const owner = owners[index]!;
        if (owner >= 0 && changed[owner] === 1) start[owner + 1]!++;
      }
    }
    for (let m = 0; m < memberCount; m++) start[m + 1]! += start[m]!;
    const indexes = new Int32Array(start[memberCount]!);
    const fill = start.slice(0, memberCount);
    for (const t of subscribedTopics) {
      const offset = topics.partitionOffsetAt(t);
      const end = offset + topics.partitionCountAt(t);
      for (let index = offset; index < end; index++) {
        const owner = owners[index]!;
        if (owner >= 0 && changed[owner] === 1) indexes[fill[owner]!++] = index;
      }
    }
    const result: MemberAssignment[] = new Array(memberCount);
    for (let m = 0; m < memberCount; m++) {
      const member = members[m]!;
      const partitions: readonly TopicIdPartitions[] =
        changed[m] === 1 ? assignmentFromPartitionIndexes(topics, indexes, start[m]!, start[m + 1]!) : member.currentAssignment;
      result[m] = { memberId: member.memberId, partitions };
    }
    return { members: result };
  }
}
