import type { TopicPartition } from "@kcsim/protocol";
import type { AssignorMemberState } from "../assignors/consumer-partition-assignor.js";
import { DEFAULT_GENERATION } from "../assignors/sticky/sticky-user-data.js";

interface Remembered {
  readonly lastAssignment: readonly TopicPartition[];
  readonly generation: number;
}

/**
 * What each configured assignor remembers of this member's assignments,
 * for its subscription user data (Kafka keeps it in the assignor instance,
 * set by `onAssignment`, and never clears it, not even when partitions are
 * lost). Only the assignor the coordinator selected hears of an assignment.
 */
export class AssignorMemory {
  readonly #byAssignor = new Map<string, Remembered>();

  stateFor(assignor: string, topics: readonly string[]): AssignorMemberState {
    const remembered = this.#byAssignor.get(assignor);
    return {
      topics,
      lastAssignment: remembered?.lastAssignment ?? null,
      generation: remembered?.generation ?? DEFAULT_GENERATION,
    };
  }

  /** `ConsumerPartitionAssignor.onAssignment`. */
  onAssignment(assignor: string, partitions: readonly TopicPartition[], generation: number): void {
    this.#byAssignor.set(assignor, { lastAssignment: [...partitions], generation });
  }
}
