/** Who the member is in its group, as requests to the coordinator carry it. */
export interface MemberIdentity {
  readonly groupId: string;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** The current member epoch (0 when joining, -1/-2 when leaving). */
  memberEpoch(): number;
}

/**
 * The epoch OffsetCommit and OffsetFetch carry: the member epoch while the
 * member is in the group, else -1 (Kafka clears it when the epoch is not
 * positive).
 */
export function epochForOffsetRequests(identity: MemberIdentity): number {
  const epoch = identity.memberEpoch();
  return epoch > 0 ? epoch : -1;
}
