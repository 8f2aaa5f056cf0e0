import type { TopicIdPartitions } from "../topic-id-partitions.js";

/** Server-side member states (`modern/MemberState.java`, an int8 on the wire and in records). */
export const MemberState = {
  /** Converged to the target at its epoch. */
  STABLE: 0,
  /** Waiting for the member to stop listing partitions it must revoke. */
  UNREVOKED_PARTITIONS: 1,
  /** At the target epoch, waiting for partitions other members still own. */
  UNRELEASED_PARTITIONS: 2,
  /** A state this coordinator does not know (written by a newer one): the member is fenced. */
  UNKNOWN: 127,
} as const;

export type MemberState = (typeof MemberState)[keyof typeof MemberState];

const NAMES = new Map<number, string>(Object.entries(MemberState).map(([name, value]) => [value, name]));

/** Kafka's name for a member state value. */
export function memberStateName(state: number): string {
  return NAMES.get(state) ?? "UNKNOWN";
}

/** The part of a consumer-group member that reconciliation reads and writes. */
export interface MemberReconciliationState {
  readonly state: MemberState;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  /** Partitions the member may own now (each has this member's epoch as its partition epoch). */
  readonly assignedPartitions: readonly TopicIdPartitions[];
  /** Partitions the member must give up (it still owns them until its heartbeat stops listing them). */
  readonly partitionsPendingRevocation: readonly TopicIdPartitions[];
}
