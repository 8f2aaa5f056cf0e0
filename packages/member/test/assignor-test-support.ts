import { parseTpKey, type TopicPartition, tpKey } from "@kcsim/protocol";
import {
  type AssignorSubscription,
  type ConsumerPartitionAssignor,
  encodeCooperativeUserData,
  encodeStickyUserData,
  javaHashMapIterationOrder,
  type MemberAssignment,
} from "../src/index.js";

/** `tps("t-0", "t-1")` */
export const tps = (...keys: string[]): TopicPartition[] => keys.map(parseTpKey);

export const counts = (byTopic: Record<string, number>): Map<string, number> => new Map(Object.entries(byTopic));

/** A subscription with Kafka's defaults: no user data, no owned partitions, no generation, dynamic member. */
export function subscription(memberId: string, topics: readonly string[], extra: Partial<AssignorSubscription> = {}): AssignorSubscription {
  return { memberId, groupInstanceId: null, topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null, ...extra };
}

/** Kafka's tests keep subscriptions in a HashMap: reorder to the order a Java leader iterates them. */
export function javaOrder(subscriptions: readonly AssignorSubscription[]): AssignorSubscription[] {
  const byId = new Map(subscriptions.map((s) => [s.memberId, s]));
  return javaHashMapIterationOrder(subscriptions.map((s) => s.memberId)).map((id) => byId.get(id) as AssignorSubscription);
}

/** Assignment as `member -> ["t-0", ...]` in the assignor's list order. */
export function keysByMember(assignment: ReadonlyMap<string, MemberAssignment>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [member, { partitions }] of assignment) out[member] = partitions.map((tp) => tpKey(tp.topic, tp.partition));
  return out;
}

/** Same, each list sorted, for tests that compare sets. */
export function sortedKeysByMember(assignment: ReadonlyMap<string, MemberAssignment>): Record<string, string[]> {
  const out = keysByMember(assignment);
  for (const member of Object.keys(out)) out[member]?.sort();
  return out;
}

/**
 * Subscriptions the way Kafka's StickyAssignorTest / CooperativeStickyAssignorTest
 * build them for each ConsumerProtocolSubscription version.
 */
export interface StickySubscriptionBuilders {
  /** A fresh member (no user data, nothing owned, no generation). */
  fresh(memberId: string, topics: readonly string[]): AssignorSubscription;
  /** v2+: owned partitions and generation in the subscription fields. */
  v2(memberId: string, topics: readonly string[], owned: readonly TopicPartition[], generation: number): AssignorSubscription;
  /** v1: owned partitions in the subscription, generation only in the user data. */
  v1(memberId: string, topics: readonly string[], owned: readonly TopicPartition[], generation: number): AssignorSubscription;
}

export const stickyBuilders: StickySubscriptionBuilders = {
  fresh: (memberId, topics) => subscription(memberId, topics),
  v2: (memberId, topics, owned, generation) =>
    subscription(memberId, topics, { userData: encodeStickyUserData(owned, generation), ownedPartitions: owned, generationId: generation }),
  v1: (memberId, topics, owned, generation) =>
    subscription(memberId, topics, { userData: encodeStickyUserData(owned, generation), ownedPartitions: owned }),
};

export const cooperativeBuilders: StickySubscriptionBuilders = {
  fresh: (memberId, topics) => subscription(memberId, topics),
  // Kafka's test assignor encodes its own (default) generation here; v2 readers ignore it.
  v2: (memberId, topics, owned, generation) =>
    subscription(memberId, topics, { userData: encodeCooperativeUserData(-1), ownedPartitions: owned, generationId: generation }),
  v1: (memberId, topics, owned, generation) =>
    subscription(memberId, topics, { userData: encodeCooperativeUserData(generation), ownedPartitions: owned }),
};

/**
 * CooperativeStickyAssignorTest.verifyValidityAndBalance's loop: while an
 * assignment revokes something, check that nothing revoked is also handed
 * out, then rerun with the new ownership (v2, generation 1) — at most 4
 * extra rounds. Returns the final assignment.
 */
export function runCooperativeRounds(
  assignor: ConsumerPartitionAssignor,
  metadata: ReadonlyMap<string, number>,
  subscriptions: readonly AssignorSubscription[],
  first: Map<string, MemberAssignment>,
  generation = 1,
): { subscriptions: AssignorSubscription[]; assignment: Map<string, MemberAssignment>; rounds: number } {
  let current = [...subscriptions];
  let assignment = first;
  for (let rounds = 0; ; rounds++) {
    const added = new Set<string>();
    const revoked = new Set<string>();
    for (const s of current) {
      const owned = new Set(s.ownedPartitions.map((tp) => tpKey(tp.topic, tp.partition)));
      const assigned = new Set((assignment.get(s.memberId)?.partitions ?? []).map((tp) => tpKey(tp.topic, tp.partition)));
      for (const key of assigned) if (!owned.has(key)) added.add(key);
      for (const key of owned) if (!assigned.has(key)) revoked.add(key);
    }
    const both = [...added].filter((key) => revoked.has(key));
    if (both.length > 0) throw new Error(`partitions handed out while being revoked: ${both.join(", ")}`);
    if (revoked.size === 0) return { subscriptions: current, assignment, rounds };
    if (rounds >= 4) throw new Error("no stable assignment after 4 extra rebalances");
    current = current.map((s) => cooperativeBuilders.v2(s.memberId, s.topics, assignment.get(s.memberId)?.partitions ?? [], generation));
    assignment = assignor.assign(metadata, current);
  }
}

/**
 * AbstractStickyAssignorTest.verifyValidityAndBalance: members only get
 * partitions of topics they subscribe to, no partition goes to two members,
 * and two members 2+ partitions apart share no topic (else one could move).
 */
export function validityAndBalanceProblems(
  subscriptions: readonly AssignorSubscription[],
  assignment: ReadonlyMap<string, MemberAssignment>,
): string[] {
  const problems: string[] = [];
  const members = subscriptions.map((s) => s.memberId).sort();
  const topicsOf = new Map(subscriptions.map((s) => [s.memberId, new Set(s.topics)]));
  const owner = new Map<string, string>();
  for (const member of members) {
    for (const tp of assignment.get(member)?.partitions ?? []) {
      const key = tpKey(tp.topic, tp.partition);
      if (!topicsOf.get(member)?.has(tp.topic)) problems.push(`${key} assigned to ${member}, not subscribed`);
      const other = owner.get(key);
      if (other !== undefined) problems.push(`${key} assigned to both ${other} and ${member}`);
      owner.set(key, member);
    }
  }
  for (let i = 0; i < members.length; i++) {
    for (let j = i + 1; j < members.length; j++) {
      const a = assignment.get(members[i] as string)?.partitions ?? [];
      const b = assignment.get(members[j] as string)?.partitions ?? [];
      if (Math.abs(a.length - b.length) <= 1) continue;
      const bTopics = new Set(b.map((tp) => tp.topic));
      const shared = a.find((tp) => bTopics.has(tp.topic));
      if (shared !== undefined) problems.push(`${members[i]} (${a.length}) and ${members[j]} (${b.length}) share topic ${shared.topic}`);
    }
  }
  return problems;
}

export function isFullyBalanced(assignment: ReadonlyMap<string, MemberAssignment>): boolean {
  const sizes = [...assignment.values()].map((a) => a.partitions.length);
  return sizes.length === 0 || Math.max(...sizes) - Math.min(...sizes) <= 1;
}
