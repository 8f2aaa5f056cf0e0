import type { ClusterMetadata } from "./cluster-metadata.js";
import type { SubscriptionState } from "./subscription-state.js";

/**
 * The leader nodes of every assigned partition, worked out again only when
 * the metadata or the assignment changed (their versions say so). With them
 * the fetcher sees, without a pass over its partitions, that every node it
 * could fetch from has a fetch in flight: the case on most of its passes.
 */
export class AssignedLeaders {
  readonly #metadata: ClusterMetadata;
  readonly #subscriptions: SubscriptionState;
  #metadataVersion = -1;
  #assignmentVersion = -1;
  #nodes: readonly number[] | null = null;

  constructor(metadata: ClusterMetadata, subscriptions: SubscriptionState) {
    this.#metadata = metadata;
    this.#subscriptions = subscriptions;
  }

  /** The distinct leader node ids of the assigned partitions; null when some partition has no known leader. */
  nodes(): readonly number[] | null {
    const metadataVersion = this.#metadata.version;
    const assignmentVersion = this.#subscriptions.assignmentVersion;
    if (metadataVersion !== this.#metadataVersion || assignmentVersion !== this.#assignmentVersion) {
      this.#metadataVersion = metadataVersion;
      this.#assignmentVersion = assignmentVersion;
      this.#nodes = this.#leaderNodes();
    }
    return this.#nodes;
  }

  #leaderNodes(): number[] | null {
    const nodes: number[] = [];
    for (const state of this.#subscriptions.all()) {
      const leader = this.#metadata.leader(state.partition);
      if (leader === undefined) return null;
      if (!nodes.includes(leader.nodeId)) nodes.push(leader.nodeId);
    }
    return nodes;
  }
}
