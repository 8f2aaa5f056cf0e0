import { compareTp, type TopicPartition } from "@kcsim/protocol";
import type { TopicMetadataConfig } from "./consumer-member-config.js";
import type { PartitionsByTopicId } from "./local-assignment.js";

/** A target assignment split into what the member can name and what it cannot. */
export interface ResolvedAssignment {
  /** The resolvable part, by topic id. */
  readonly byId: PartitionsByTopicId;
  /** The same partitions by topic name, sorted. */
  readonly partitions: readonly TopicPartition[];
  readonly unresolvedTopicIds: readonly string[];
}

/**
 * The cluster metadata the member knows: topic ids <-> names. Static in the
 * simulation (from the actor config), so an id missing here never resolves.
 */
export class TopicMetadata {
  readonly #nameById = new Map<string, string>();
  readonly #idByName = new Map<string, string>();

  constructor(topics: readonly TopicMetadataConfig[]) {
    for (const topic of topics) {
      this.#nameById.set(topic.id, topic.name);
      this.#idByName.set(topic.name, topic.id);
    }
  }

  nameOf(topicId: string): string | undefined {
    return this.#nameById.get(topicId);
  }

  idOf(topic: string): string | undefined {
    return this.#idByName.get(topic);
  }

  resolve(assignment: PartitionsByTopicId): ResolvedAssignment {
    const byId = new Map<string, readonly number[]>();
    const named: [string, readonly number[]][] = [];
    const unresolvedTopicIds: string[] = [];
    for (const [topicId, list] of assignment) {
      const topic = this.#nameById.get(topicId);
      if (topic === undefined) {
        unresolvedTopicIds.push(topicId);
        continue;
      }
      byId.set(topicId, list);
      named.push([topic, list]);
    }
    // Each topic's partitions ascend, so the topics in name order list them sorted already: one comparison
    // per partition checks it, where sorting them all (a member of a join storm holds thousands) costs a dozen.
    named.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const partitions: TopicPartition[] = [];
    let sorted = true;
    for (const [topic, list] of named) {
      for (const partition of list) {
        const next = { topic, partition };
        const last = partitions[partitions.length - 1];
        if (last !== undefined && compareTp(last, next) > 0) sorted = false;
        partitions.push(next);
      }
    }
    return { byId, partitions: sorted ? partitions : partitions.sort(compareTp), unresolvedTopicIds };
  }
}
