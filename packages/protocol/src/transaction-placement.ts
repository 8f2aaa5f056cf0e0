import { partitionFor } from "./partition-for.js";

/**
 * Which transaction coordinator owns a transactional id: the leader of
 * `__transaction_state` partition `partitionFor(transactionalId)`
 * (`TransactionStateManager.partitionFor`: abs(hashCode) % partitions,
 * transaction.state.log.num.partitions); the simulated cluster spreads those
 * partitions over its coordinator actors, partition p on
 * txnCoordinators[p mod txnCoordinators.length].
 */
export class TransactionPlacement {
  constructor(
    readonly coordinators: readonly string[],
    readonly transactionStatePartitions: number,
  ) {}

  /** The `__transaction_state` partition of the transactional id. */
  partitionOf(transactionalId: string): number {
    return partitionFor(transactionalId, this.transactionStatePartitions);
  }

  /** The index of the owner in `coordinators` (FindCoordinator's NodeId). */
  indexOf(transactionalId: string): number {
    return this.partitionOf(transactionalId) % this.coordinators.length;
  }

  /** The actor id of the transactional id's coordinator. */
  ownerOf(transactionalId: string): string {
    return this.coordinators[this.indexOf(transactionalId)] as string;
  }
}
