import type { AssignmentMemberSpec, SubscriptionType } from "../assignors/group-spec.js";
import { SubscribedTopicDescriber } from "../assignors/subscribed-topic-describer.js";
import type { ConsumerGroupState } from "../observations.js";
import type { CurrentPartitionEpoch } from "../reconciliation/current-assignment-builder.js";
import { MemberState } from "../reconciliation/member-state.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";
import { AssignmentSpecs } from "./assignment-specs.js";
import { type ConsumerGroupMember, isReconciledTo } from "./consumer-group-member.js";
import { PartitionEpochs } from "./partition-epochs.js";
import { NO_SUBSCRIPTION_METADATA, type SubscriptionMetadata } from "./subscription-metadata.js";

const NO_PARTITIONS: readonly TopicIdPartitions[] = [];

/**
 * A KIP-848 consumer group (Kafka's `ConsumerGroup`): epochs, members,
 * target assignment, subscription metadata and partition epochs. Its state
 * changes only through the replay of records (records/replay.ts), live or
 * at load, so a restarted coordinator rebuilds exactly the same group.
 *
 * Members are kept in join order: the order in which their first record was
 * replayed (the same live and after a restart). That is the explicit member
 * order handed to the server assignors.
 */
export class ConsumerGroup {
  readonly protocol = "consumer" as const;
  readonly groupId: string;
  #groupEpoch = 0;
  /** -1 until the first target assignment (the observation contract's convention). */
  #assignmentEpoch = -1;
  readonly #members = new Map<string, ConsumerGroupMember>();
  /** instance id -> member id */
  readonly #staticMembers = new Map<string, string>();
  readonly #targets = new Map<string, readonly TopicIdPartitions[]>();
  #subscriptionMetadata: SubscriptionMetadata = NO_SUBSCRIPTION_METADATA;
  #describer: SubscribedTopicDescriber | null = null;
  /** Subscribed topic name -> number of members subscribing to it. */
  readonly #subscribedTopicNames = new Map<string, number>();
  /** ServerAssignor name -> number of members asking for it. */
  readonly #serverAssignors = new Map<string, number>();
  readonly #partitionEpochs = new PartitionEpochs();
  readonly #assignmentSpecs = new AssignmentSpecs();
  /** Members STABLE at the assignment epoch (kept so the state costs O(1)). */
  #reconciledMembers = 0;
  /** Member epoch -> members STABLE at it (so a new assignment epoch finds its reconciled members in O(1)). */
  readonly #stableMembersByEpoch = new Map<number, number>();
  /** Members that use the classic protocol (a mixed group when > 0). */
  #numClassicProtocolMembers = 0;
  /** JoinGroup protocol name -> number of classic members supporting it. */
  readonly #classicProtocols = new Map<string, number>();
  /**
   * Volatile (never persisted): the group epoch at which the subscription
   * metadata was last refreshed, or null when a refresh is due (Kafka's
   * metadata refresh deadline: due after creation, after a load, after any
   * epoch change and when the metadata image touches a subscribed topic).
   */
  metadataRefreshedAtEpoch: number | null = null;

  constructor(groupId: string) {
    this.groupId = groupId;
  }

  get groupEpoch(): number {
    return this.#groupEpoch;
  }

  get assignmentEpoch(): number {
    return this.#assignmentEpoch;
  }

  get numMembers(): number {
    return this.#members.size;
  }

  /** Members in join order. */
  members(): ReadonlyMap<string, ConsumerGroupMember> {
    return this.#members;
  }

  member(memberId: string): ConsumerGroupMember | undefined {
    return this.#members.get(memberId);
  }

  hasMember(memberId: string): boolean {
    return this.#members.has(memberId);
  }

  /** The member that holds the instance id, if any. */
  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const memberId = this.#staticMembers.get(instanceId);
    return memberId === undefined ? undefined : this.#members.get(memberId);
  }

  /** The member's target assignment (empty when it has none). */
  targetOf(memberId: string): readonly TopicIdPartitions[] {
    return this.#targets.get(memberId) ?? NO_PARTITIONS;
  }

  hasTarget(memberId: string): boolean {
    return this.#targets.has(memberId);
  }

  get numTargets(): number {
    return this.#targets.size;
  }

  get subscriptionMetadata(): SubscriptionMetadata {
    return this.#subscriptionMetadata;
  }

  /** The assignors' view of the subscription metadata (built once per metadata version). */
  describer(): SubscribedTopicDescriber {
    this.#describer ??= new SubscribedTopicDescriber(this.#subscriptionMetadata);
    return this.#describer;
  }

  /**
   * Every member's spec for the assignors, in join order, with its current
   * target (kept between assignments: only the specs of members that
   * changed are rebuilt). Valid until the group changes.
   */
  assignmentSpecs(): readonly AssignmentMemberSpec[] {
    return this.#assignmentSpecs.of(this.#members, (memberId) => this.targetOf(memberId), this.#subscriptionMetadata);
  }

  /** Topic names subscribed by at least one member, with their subscriber counts. */
  subscribedTopicNames(): ReadonlyMap<string, number> {
    return this.#subscribedTopicNames;
  }

  /** HOMOGENEOUS when every subscribed topic name is subscribed by every member (Kafka counts names). */
  subscriptionType(): SubscriptionType {
    for (const count of this.#subscribedTopicNames.values()) if (count !== this.#members.size) return "heterogeneous";
    return "homogeneous";
  }

  /**
   * The ServerAssignor most members ask for, or null when none asks.
   * Ties go to the assignor listed first in `assignorOrder`
   * (group.consumer.assignors): Kafka leaves them to HashMap order.
   */
  preferredServerAssignor(assignorOrder: readonly string[]): string | null {
    let best: string | null = null;
    let bestCount = 0;
    let bestRank = Number.POSITIVE_INFINITY;
    for (const [name, count] of this.#serverAssignors) {
      const rank = assignorOrder.indexOf(name);
      const effectiveRank = rank < 0 ? Number.MAX_SAFE_INTEGER : rank;
      if (count > bestCount || (count === bestCount && effectiveRank < bestRank)) {
        best = name;
        bestCount = count;
        bestRank = effectiveRank;
      }
    }
    return best;
  }

  get numClassicProtocolMembers(): number {
    return this.#numClassicProtocolMembers;
  }

  /**
   * Whether a classic member with these JoinGroup protocols may join
   * (Kafka's `supportsClassicProtocols`): protocol type "consumer" and, in
   * a non-empty group, a protocol every classic member supports.
   */
  supportsClassicProtocols(protocolType: string, protocolNames: readonly string[]): boolean {
    if (protocolType !== "consumer") return false;
    if (this.#members.size === 0) return protocolNames.length > 0;
    return protocolNames.some((name) => (this.#classicProtocols.get(name) ?? 0) === this.#numClassicProtocolMembers);
  }

  /**
   * Whether removing these members leaves only classic members behind and
   * at least one of them uses the consumer protocol: the condition of an
   * online downgrade (Kafka's `allMembersUseClassicProtocolExcept`).
   */
  allMembersUseClassicProtocolExcept(memberIds: ReadonlySet<string>): boolean {
    let leavingConsumerMembers = 0;
    let leavingClassicMembers = 0;
    for (const memberId of memberIds) {
      const member = this.#members.get(memberId);
      if (member === undefined) continue;
      if (member.classicMemberMetadata === null) leavingConsumerMembers++;
      else leavingClassicMembers++;
    }
    const remaining = this.#members.size - leavingConsumerMembers - leavingClassicMembers;
    return leavingConsumerMembers > 0 && this.#numClassicProtocolMembers - leavingClassicMembers === remaining;
  }

  /**
   * Whether an UNRELEASED_PARTITIONS member still waits for a partition
   * another member holds (Kafka's `waitingOnUnreleasedPartition`); false
   * once everything its target adds is free.
   */
  waitingOnUnreleasedPartition(member: ConsumerGroupMember): boolean {
    if (member.state !== MemberState.UNRELEASED_PARTITIONS) return false;
    const assigned = new Map(member.assignedPartitions.map(({ topicId, partitions }) => [topicId, new Set(partitions)]));
    for (const { topicId, partitions } of this.targetOf(member.memberId)) {
      const held = assigned.get(topicId);
      for (const partition of partitions) {
        if (held?.has(partition) !== true && this.#partitionEpochs.epochOf(topicId, partition) !== -1) return true;
      }
    }
    return false;
  }

  /** The owner's epoch of a partition, -1 when free (for the CurrentAssignmentBuilder). */
  readonly currentPartitionEpoch: CurrentPartitionEpoch = (topicId, partition) => this.#partitionEpochs.epochOf(topicId, partition);

  state(): ConsumerGroupState {
    if (this.#members.size === 0) return "EMPTY";
    if (this.#groupEpoch > this.#assignmentEpoch) return "ASSIGNING";
    if (this.#reconciledMembers < this.#members.size) return "RECONCILING";
    return "STABLE";
  }

  // ---- mutations: called by record replay only ----

  setGroupEpoch(epoch: number): void {
    this.#groupEpoch = epoch;
  }

  setAssignmentEpoch(epoch: number): void {
    if (epoch === this.#assignmentEpoch) return;
    this.#assignmentEpoch = epoch;
    this.#reconciledMembers = this.#stableMembersByEpoch.get(epoch) ?? 0;
  }

  setSubscriptionMetadata(metadata: SubscriptionMetadata): void {
    this.#subscriptionMetadata = metadata;
    this.#describer = null;
  }

  setTarget(memberId: string, target: readonly TopicIdPartitions[]): void {
    this.#targets.set(memberId, target);
    this.#assignmentSpecs.memberChanged(memberId);
  }

  removeTarget(memberId: string): void {
    this.#targets.delete(memberId);
    this.#assignmentSpecs.memberChanged(memberId);
  }

  /** Adds the member (at the end of the join order) or replaces it in place. */
  updateMember(next: ConsumerGroupMember): void {
    const previous = this.#members.get(next.memberId);
    if (previous !== undefined) this.#unindex(previous, next);
    this.#members.set(next.memberId, next);
    this.#index(next, previous);
    if (previous === undefined) this.#assignmentSpecs.memberAdded(next.memberId);
    else if (previous.instanceId !== next.instanceId || previous.subscribedTopicNames !== next.subscribedTopicNames) {
      this.#assignmentSpecs.memberChanged(next.memberId);
    }
  }

  removeMember(memberId: string): void {
    const previous = this.#members.get(memberId);
    if (previous === undefined) throw new IllegalStateError(`member ${memberId} is not in group ${this.groupId}`);
    this.#unindex(previous, undefined);
    this.#members.delete(memberId);
    this.#assignmentSpecs.memberRemoved();
  }

  /** Removes what `member` contributes to the derived indexes (those `next` keeps unchanged are skipped). */
  #unindex(member: ConsumerGroupMember, next: ConsumerGroupMember | undefined): void {
    if (isReconciledTo(member, this.#assignmentEpoch)) this.#reconciledMembers--;
    if (member.state === MemberState.STABLE) decrement(this.#stableMembersByEpoch, member.memberEpoch);
    if (next === undefined || !sameOwnership(member, next)) {
      this.#partitionEpochs.remove(member.assignedPartitions, member.memberEpoch);
      this.#partitionEpochs.remove(member.partitionsPendingRevocation, member.memberEpoch);
    }
    if (next === undefined || next.subscribedTopicNames !== member.subscribedTopicNames) {
      for (const name of member.subscribedTopicNames) decrement(this.#subscribedTopicNames, name);
    }
    if (member.serverAssignor !== null) decrement(this.#serverAssignors, member.serverAssignor);
    if (member.instanceId !== null && this.#staticMembers.get(member.instanceId) === member.memberId) {
      this.#staticMembers.delete(member.instanceId);
    }
    if (member.classicMemberMetadata !== null) {
      this.#numClassicProtocolMembers--;
      for (const { name } of member.classicMemberMetadata.supportedProtocols) decrement(this.#classicProtocols, name);
    }
  }

  #index(member: ConsumerGroupMember, previous: ConsumerGroupMember | undefined): void {
    if (isReconciledTo(member, this.#assignmentEpoch)) this.#reconciledMembers++;
    if (member.state === MemberState.STABLE) {
      this.#stableMembersByEpoch.set(member.memberEpoch, (this.#stableMembersByEpoch.get(member.memberEpoch) ?? 0) + 1);
    }
    if (previous === undefined || !sameOwnership(member, previous)) {
      this.#partitionEpochs.add(member.assignedPartitions, member.memberEpoch);
      this.#partitionEpochs.add(member.partitionsPendingRevocation, member.memberEpoch);
    }
    if (previous === undefined || previous.subscribedTopicNames !== member.subscribedTopicNames) {
      for (const name of member.subscribedTopicNames) this.#subscribedTopicNames.set(name, (this.#subscribedTopicNames.get(name) ?? 0) + 1);
    }
    if (member.serverAssignor !== null)
      this.#serverAssignors.set(member.serverAssignor, (this.#serverAssignors.get(member.serverAssignor) ?? 0) + 1);
    if (member.instanceId !== null) this.#staticMembers.set(member.instanceId, member.memberId);
    if (member.classicMemberMetadata !== null) {
      this.#numClassicProtocolMembers++;
      for (const { name } of member.classicMemberMetadata.supportedProtocols) {
        this.#classicProtocols.set(name, (this.#classicProtocols.get(name) ?? 0) + 1);
      }
    }
  }
}

/** Same partitions held at the same epoch (the partition epochs need no update). */
function sameOwnership(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  return (
    a.memberEpoch === b.memberEpoch &&
    a.assignedPartitions === b.assignedPartitions &&
    a.partitionsPendingRevocation === b.partitionsPendingRevocation
  );
}

function decrement<K>(counts: Map<K, number>, key: K): void {
  const count = (counts.get(key) ?? 0) - 1;
  if (count <= 0) counts.delete(key);
  else counts.set(key, count);
}
