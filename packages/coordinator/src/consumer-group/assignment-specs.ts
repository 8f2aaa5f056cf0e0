import type { AssignmentMemberSpec } from "../assignors/group-spec.js";
import type { TopicIdPartitions } from "../topic-id-partitions.js";
import type { ConsumerGroupMember } from "./consumer-group-member.js";
import type { SubscriptionMetadata } from "./subscription-metadata.js";

/** Under one subscription metadata: topic ids by name, and each subscription's id list by its joined names. */
interface SubscriptionIds {
  readonly idByName: ReadonlyMap<string, string>;
  readonly idsByKey: Map<string, readonly string[]>;
}

/** Per subscription metadata (a version lives until the subscribed topics change). */
const subscriptionIdsOf = new WeakMap<SubscriptionMetadata, SubscriptionIds>();

/**
 * The id list of each subscription array, with the metadata it was found
 * under: a member's subscription array lives as long as its MemberMetadata,
 * so a burst of joins does not look every member's topic names up again.
 */
const idsOfSubscription = new WeakMap<readonly string[], { readonly metadata: SubscriptionMetadata; readonly ids: readonly string[] }>();

/** The subscribed topic ids that exist, in subscription order; members with the same subscription share one list. */
export function subscribedTopicIdsOf(names: readonly string[], metadata: SubscriptionMetadata): readonly string[] {
  const cached = idsOfSubscription.get(names);
  if (cached !== undefined && cached.metadata === metadata) return cached.ids;
  let known = subscriptionIdsOf.get(metadata);
  if (known === undefined) {
    known = { idByName: new Map(metadata.map((topic) => [topic.name, topic.topicId])), idsByKey: new Map() };
    subscriptionIdsOf.set(metadata, known);
  }
  const key = names.join("\u0000");
  let ids = known.idsByKey.get(key);
  if (ids === undefined) {
    const found: string[] = [];
    for (const name of names) {
      const id = known.idByName.get(name);
      if (id !== undefined) found.push(id);
    }
    ids = found;
    known.idsByKey.set(key, ids);
  }
  idsOfSubscription.set(names, { metadata, ids });
  return ids;
}

/** The spec of one member as the assignors get it. */
export function assignmentMemberSpecOf(
  member: ConsumerGroupMember,
  currentAssignment: readonly TopicIdPartitions[],
  metadata: SubscriptionMetadata,
): AssignmentMemberSpec {
  return {
    memberId: member.memberId,
    instanceId: member.instanceId,
    subscribedTopicIds: subscribedTopicIdsOf(member.subscribedTopicNames, metadata),
    currentAssignment,
  };
}

/**
 * A consumer group's member specs for the assignors (one per member, in
 * join order, each with its current target), kept from one target
 * assignment to the next. The group reports what changes (a member added,
 * a member's instance id, subscription or target, a member removed); the
 * next `of` rewrites only the specs of those members and appends the new
 * ones, so a join storm's assignment per joining member does not rebuild
 * a spec per member. A removal (rare: the positions of all later members
 * move) or new subscription metadata rebuilds the whole list.
 *
 * The list returned is the same array each time, updated in place: a
 * caller must not keep it past the next change of the group.
 */
export class AssignmentSpecs {
  readonly #specs: AssignmentMemberSpec[] = [];
  /** Member id -> position in #specs. */
  readonly #positions = new Map<string, number>();
  /** Members added since the last `of`, in join order. */
  readonly #added: string[] = [];
  /** Members whose spec may be out of date. */
  readonly #changed = new Set<string>();
  /** The metadata the specs were built under; null: rebuild them all. */
  #metadata: SubscriptionMetadata | null = null;

  /** A member joined (at the end of the join order). */
  memberAdded(memberId: string): void {
    if (this.#metadata !== null) this.#added.push(memberId);
  }

  /** A member's instance id, subscription or target changed. */
  memberChanged(memberId: string): void {
    if (this.#metadata !== null) this.#changed.add(memberId);
  }

  /** A member left: the positions after it move, so everything is rebuilt. */
  memberRemoved(): void {
    this.#metadata = null;
    this.#added.length = 0;
    this.#changed.clear();
  }

  /** The specs of `members` (in their order) with their targets, under `metadata`. */
  of(
    members: ReadonlyMap<string, ConsumerGroupMember>,
    targetOf: (memberId: string) => readonly TopicIdPartitions[],
    metadata: SubscriptionMetadata,
  ): readonly AssignmentMemberSpec[] {
    const specs = this.#specs;
    const positions = this.#positions;
    if (this.#metadata !== metadata) {
      specs.length = 0;
      positions.clear();
      for (const member of members.values()) {
        positions.set(member.memberId, specs.length);
        specs.push(assignmentMemberSpecOf(member, targetOf(member.memberId), metadata));
      }
    } else {
      for (const memberId of this.#changed) {
        const position = positions.get(memberId);
        const member = members.get(memberId);
        // Not placed yet: an added member (placed below).
        if (position !== undefined && member !== undefined) specs[position] = assignmentMemberSpecOf(member, targetOf(memberId), metadata);
      }
      for (const memberId of this.#added) {
        const member = members.get(memberId);
        if (member === undefined) throw new Error(`added member ${memberId} is not in the group`);
        positions.set(memberId, specs.length);
        specs.push(assignmentMemberSpecOf(member, targetOf(memberId), metadata));
      }
    }
    this.#metadata = metadata;
    this.#added.length = 0;
    this.#changed.clear();
    if (specs.length !== members.size) throw new Error(`${specs.length} assignment specs for ${members.size} members`);
    return specs;
  }
}
