import type { TopicPartition } from "@kcsim/protocol";
import type { AssignorSubscription } from "../consumer-partition-assignor.js";
import { keyOf } from "../topic-partitions.js";
import { DEFAULT_GENERATION, type StickyMemberData } from "./sticky-user-data.js";

/** The previous ownership the sticky assignors start from. */
export interface OwnershipClaims {
  /** Whether every member subscribes to the same topics (selects the fast path). */
  readonly allSubscriptionsEqual: boolean;
  /** Each member's previously owned partitions that still exist and survived conflicts, in member order. */
  readonly ownedByMember: Map<string, TopicPartition[]>;
  /** Keys of partitions claimed by two members of the same generation: taken from both. */
  readonly claimedByMultipleOwners: Set<string>;
  /** The highest generation any member reported (-1 if none). */
  readonly maxGeneration: number;
}

function removeFirst(list: TopicPartition[], key: string): void {
  const index = list.findIndex((tp) => keyOf(tp) === key);
  if (index >= 0) list.splice(index, 1);
}

function sameTopics(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((topic) => b.has(topic));
}

/**
 * `AbstractStickyAssignor.allSubscriptionsEqual`: walks the members in
 * iteration order and settles who owns what. A partition claimed by two
 * members of the same generation is taken from both (and remembered, so it
 * counts as changing owner); with different generations the higher keeps
 * it. As in Kafka, the member's own generation comes from its member data
 * while the earlier claimant's comes from its subscription's generationId.
 *
 * Deviations, both only on inputs Kafka never produces: a member with an
 * empty subscription does not count as "equal" to everyone (Kafka's first-
 * member check would let it take partitions of topics it does not read), and
 * partitions past a topic's partition count are dropped like deleted topics.
 */
export function resolveOwnershipClaims(
  partitionCounts: ReadonlyMap<string, number>,
  subscriptions: readonly AssignorSubscription[],
  memberData: ReadonlyMap<string, StickyMemberData>,
): OwnershipClaims {
  const subscriptionGeneration = new Map(subscriptions.map((s) => [s.memberId, s.generationId < 0 ? DEFAULT_GENERATION : s.generationId]));
  const ownedByMember = new Map<string, TopicPartition[]>();
  const claimedByMultipleOwners = new Set<string>();
  const lastClaimant = new Map<string, string>();
  let maxGeneration = DEFAULT_GENERATION;
  let firstTopics: ReadonlySet<string> | null = null;
  let allSubscriptionsEqual = true;

  for (const subscription of subscriptions) {
    const topics = new Set(subscription.topics);
    if (firstTopics === null) firstTopics = topics;
    else if (allSubscriptionsEqual && !sameTopics(firstTopics, topics)) allSubscriptionsEqual = false;

    const data = memberData.get(subscription.memberId) ?? { partitions: [], generation: null };
    const generation = data.generation ?? DEFAULT_GENERATION;
    maxGeneration = Math.max(maxGeneration, generation);

    const owned: TopicPartition[] = [];
    ownedByMember.set(subscription.memberId, owned);
    for (const tp of data.partitions) {
      const count = partitionCounts.get(tp.topic);
      if (count === undefined || tp.partition < 0 || tp.partition >= count) continue;
      const key = keyOf(tp);
      const other = lastClaimant.get(key);
      if (other === undefined) {
        owned.push(tp);
        lastClaimant.set(key, subscription.memberId);
        continue;
      }
      const otherGeneration = subscriptionGeneration.get(other) ?? DEFAULT_GENERATION;
      if (generation === otherGeneration) {
        claimedByMultipleOwners.add(key);
        removeFirst(ownedByMember.get(other) ?? [], key);
        lastClaimant.set(key, subscription.memberId);
      } else if (generation > otherGeneration) {
        owned.push(tp);
        removeFirst(ownedByMember.get(other) ?? [], key);
        lastClaimant.set(key, subscription.memberId);
      }
      // else: the earlier claimant's higher generation wins; this claim is dropped.
    }
  }
  return { allSubscriptionsEqual, ownedByMember, claimedByMultipleOwners, maxGeneration };
}
