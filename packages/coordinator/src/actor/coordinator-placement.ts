import { partitionFor } from "@kcsim/protocol";

/**
 * Which coordinator hosts a group (spec 5): the leader of
 * `__consumer_offsets` partition `partitionFor(groupId)`; the simulated
 * cluster spreads those partitions over its coordinator actors, partition p
 * on coordinators[p mod coordinators.length].
 */
export class CoordinatorPlacement {
  constructor(
    readonly coordinators: readonly string[],
    readonly offsetsTopicPartitions: number,
  ) {}

  /** The index of the group's coordinator in `coordinators` (FindCoordinator's NodeId). */
  indexOf(groupId: string): number {
    return partitionFor(groupId, this.offsetsTopicPartitions) % this.coordinators.length;
  }

  /** The actor id of the group's coordinator. */
  ownerOf(groupId: string): string {
    return this.coordinators[this.indexOf(groupId)] as string;
  }

  /** The actor id of the coordinator of `__consumer_offsets` partition `partition`. */
  ownerOfPartition(partition: number): string {
    return this.coordinators[partition % this.coordinators.length] as string;
  }
}
