/**
 * A value per topic partition, made on first use. A replay of a history
 * asks for one per record batch (a hundred thousand times and more); a Map
 * keyed by `<topic>-<partition>` strings spends most of that time building
 * and hashing fresh key strings, this looks up the topic and indexes the
 * partition.
 */
export class PartitionTable<T> {
  readonly #byTopic = new Map<string, T[]>();
  readonly #create: (topic: string, partition: number) => T;

  constructor(create: (topic: string, partition: number) => T) {
    this.#create = create;
  }

  get(topic: string, partition: number): T {
    let partitions = this.#byTopic.get(topic);
    if (partitions === undefined) {
      partitions = [];
      this.#byTopic.set(topic, partitions);
    }
    let value = partitions[partition];
    if (value === undefined) {
      value = this.#create(topic, partition);
      partitions[partition] = value;
    }
    return value;
  }
}
