import type { TopicIdPartitions } from "../topic-id-partitions.js";

/**
 * HOMOGENEOUS when every subscribed topic is subscribed by all members
 * (Kafka computes it from topic names as members change; spec 3).
 */
export type SubscriptionType = "homogeneous" | "heterogeneous";

/** One member as the assignors see it. */
export interface AssignmentMemberSpec {
  readonly memberId: string;
  /** `group.instance.id` of a static member, else null. */
  readonly instanceId: string | null;
  /** Subscribed topic ids (a set: duplicates are ignored). */
  readonly subscribedTopicIds: readonly string[];
  /**
   * The member's current *target* assignment (not what it owns). Its order is
   * an input of the homogeneous uniform assignor, which keeps partitions of a
   * member in this order until the member's quota is used up.
   */
  readonly currentAssignment: readonly TopicIdPartitions[];
}

/**
 * The group as the assignors see it. Members are in an explicit order (Kafka
 * iterates a `HashMap` here): the uniform assignor gives its extra slots and
 * breaks ties by this order.
 */
export interface GroupSpec {
  readonly members: readonly AssignmentMemberSpec[];
  /**
   * As the group maintains it; computed from `members` when omitted. Kafka
   * derives it from subscribed topic *names*, including topics that do not
   * exist, so a coordinator should pass its own value.
   */
  readonly subscriptionType?: SubscriptionType;
}

/** Whether all members subscribe to the same set of topic ids. */
export function subscriptionTypeOf(members: readonly AssignmentMemberSpec[]): SubscriptionType {
  const first = members[0];
  if (first === undefined) return "homogeneous";
  const firstSet = new Set(first.subscribedTopicIds);
  for (const member of members) {
    // Members built from one subscription share the array: skip the set work.
    if (member.subscribedTopicIds === first.subscribedTopicIds) continue;
    const set = new Set(member.subscribedTopicIds);
    if (set.size !== firstSet.size) return "heterogeneous";
    for (const topicId of set) if (!firstSet.has(topicId)) return "heterogeneous";
  }
  return "homogeneous";
}
