import { compareJavaStrings } from "./topic-partitions.js";

/** The identity assignors sort members by (Kafka's `AbstractPartitionAssignor.MemberInfo`). */
export interface MemberInfo {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

/**
 * `MemberInfo.compareTo`: static members (with a `group.instance.id`) first,
 * ordered by instance id, then dynamic members ordered by member id. Sorting
 * by instance id keeps a restarted static member in its slot.
 */
export function compareMemberInfo(a: MemberInfo, b: MemberInfo): number {
  if (a.groupInstanceId !== null && b.groupInstanceId !== null) return compareJavaStrings(a.groupInstanceId, b.groupInstanceId);
  if (a.groupInstanceId !== null) return -1;
  if (b.groupInstanceId !== null) return 1;
  return compareJavaStrings(a.memberId, b.memberId);
}
