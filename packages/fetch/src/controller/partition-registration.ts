/** Kafka's "no leader" id. */
export const NO_LEADER = -1;

/** A partition as the controller records it (Kafka's `PartitionRegistration`). */
export interface PartitionRegistration {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly leader: number;
  readonly leaderEpoch: number;
  /** Goes up on every change of the partition (leader or ISR). */
  readonly partitionEpoch: number;
}

/** How a change picks the leader (Kafka's `PartitionChangeBuilder.Election` without UNCLEAN). */
export type Election = { readonly kind: "online" } | { readonly kind: "preferred"; readonly target: number };

export interface PartitionChange {
  /** The ISR wanted (default: unchanged). */
  readonly targetIsr?: readonly number[];
  readonly election: Election;
  /** Registered, unfenced brokers (plus, when unfencing, the broker being unfenced). */
  readonly isAcceptableLeader: (brokerId: number) => boolean;
}

/**
 * Applies a change to a partition (Kafka's `PartitionChangeBuilder.build`
 * with eligible leader replicas disabled and no unclean election). The
 * leader stays if it is still in the target ISR and acceptable; otherwise the
 * first replica in replica order that is, or NO_LEADER (the partition is
 * offline). A preferred election moves the leader to its target when the
 * target qualifies. The ISR never becomes empty: a change that would empty
 * it keeps the old ISR, so the last member can lead again when it returns.
 * A new leader means leader epoch + 1; any change means partition epoch + 1.
 * Returns undefined when nothing changes.
 */
export function changePartition(current: PartitionRegistration, change: PartitionChange): PartitionRegistration | undefined {
  const targetIsr = change.targetIsr ?? current.isr;
  const isValidLeader = (replica: number) => targetIsr.includes(replica) && change.isAcceptableLeader(replica);
  let leader: number;
  if (change.election.kind === "preferred" && isValidLeader(change.election.target)) leader = change.election.target;
  else if (isValidLeader(current.leader)) leader = current.leader;
  else leader = current.replicas.find(isValidLeader) ?? NO_LEADER;
  const isr = targetIsr.length > 0 ? [...targetIsr] : [...current.isr];
  const isrChanged = isr.length !== current.isr.length || isr.some((id, i) => id !== current.isr[i]);
  const leaderChanged = leader !== current.leader;
  if (!isrChanged && !leaderChanged) return undefined;
  return {
    ...current,
    isr,
    leader,
    leaderEpoch: leaderChanged ? current.leaderEpoch + 1 : current.leaderEpoch,
    partitionEpoch: current.partitionEpoch + 1,
  };
}
