/** A topic of the cluster as the coordinator's metadata image knows it. */
export interface TopicImage {
  readonly name: string;
  readonly id: string;
  readonly partitions: number;
}

/**
 * The cluster's topics (Kafka's `MetadataImage.topics()` as the group
 * coordinator sees it): looked up by name or id. Topics keep the order in
 * which they became known (configuration order, then creation order); that
 * order is the explicit topic order handed to the server assignors.
 */
export class MetadataImage {
  readonly #byName = new Map<string, TopicImage>();
  readonly #byId = new Map<string, TopicImage>();
  readonly #rank = new Map<string, number>();

  constructor(topics: readonly TopicImage[] = []) {
    for (const topic of topics) this.apply(topic);
  }

  topic(name: string): TopicImage | undefined {
    return this.#byName.get(name);
  }

  topicById(id: string): TopicImage | undefined {
    return this.#byId.get(id);
  }

  /** The topic's position in the image order (-1 when unknown). */
  rankOf(name: string): number {
    return this.#rank.get(name) ?? -1;
  }

  /** Every topic, in image order. */
  topics(): TopicImage[] {
    return [...this.#byName.values()];
  }

  get size(): number {
    return this.#byName.size;
  }

  /**
   * Creates the topic or changes its partition count. A topic keeps its id
   * for life and an id names one topic only; partitions only grow.
   */
  apply(topic: TopicImage): void {
    const existing = this.#byName.get(topic.name);
    if (existing !== undefined) {
      if (existing.id !== topic.id) throw new RangeError(`topic ${topic.name} has id ${existing.id}, not ${topic.id}`);
      if (topic.partitions < existing.partitions) {
        throw new RangeError(`topic ${topic.name} has ${existing.partitions} partitions; partitions cannot be removed`);
      }
    } else {
      const holder = this.#byId.get(topic.id);
      if (holder !== undefined) throw new RangeError(`topic id ${topic.id} already names topic ${holder.name}`);
      this.#rank.set(topic.name, this.#rank.size);
    }
    const image: TopicImage = { name: topic.name, id: topic.id, partitions: topic.partitions };
    this.#byName.set(topic.name, image);
    this.#byId.set(topic.id, image);
  }
}
