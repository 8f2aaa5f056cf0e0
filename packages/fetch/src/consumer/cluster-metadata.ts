import { type ActorId, ErrorCode, getOrCreate, type MetadataResponse, type TopicPartition } from "@kcsim/protocol";
import { ZERO_TOPIC_ID } from "../session/topic-id-partition.js";

/** A topic the fetcher may read, as the scenario declares it. */
export interface FetcherTopic {
  readonly name: string;
  readonly id: string;
  readonly partitions: number;
}

/** Where a partition is read from: its leader's node id and actor id, and the leader epoch. */
export interface PartitionLeader {
  readonly nodeId: number;
  readonly broker: ActorId;
  readonly epoch: number;
}

interface LeaderAndEpoch {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  /** What `leader` last answered for it (valid while its broker's host is the same). */
  answer?: PartitionLeader;
}

/** Kafka's "no leader" node id. */
const NO_LEADER = -1;

/**
 * What the client knows of the cluster (the part of Kafka's `Metadata` /
 * `ConsumerMetadata` the fetcher uses): brokers by node id (a broker's
 * `host` is its actor id), each partition's leader and leader epoch, and the
 * topic ids. Like Kafka, a response carrying an older leader epoch than the
 * one already known does not replace it (stale metadata from a lagging broker).
 */
export class ClusterMetadata {
  readonly #topics: readonly FetcherTopic[];
  readonly #brokers = new Map<number, ActorId>();
  /** Leaders by topic, then partition. */
  readonly #leaders = new Map<string, Map<number, LeaderAndEpoch>>();
  readonly #topicIds = new Map<string, string>();
  #version = 0;

  constructor(topics: readonly FetcherTopic[]) {
    this.#topics = topics;
    for (const topic of topics) this.#topicIds.set(topic.name, topic.id);
  }

  /** Moves on with every update: equal versions mean `leader` answers as it did. */
  get version(): number {
    return this.#version;
  }

  /** The topic names asked for in metadata requests. */
  topicNames(): string[] {
    return this.#topics.map((topic) => topic.name);
  }

  /** The topic's id, from the latest metadata (the declared id until then), or ZERO_TOPIC_ID if unknown. */
  topicId(topic: string): string {
    return this.#topicIds.get(topic) ?? ZERO_TOPIC_ID;
  }

  /** The brokers of the latest metadata, by node id order. */
  brokers(): ActorId[] {
    return [...this.#brokers.entries()].sort((a, b) => a[0] - b[0]).map(([, host]) => host);
  }

  /** The partition's leader, if one is known and its broker is in the metadata. */
  leader(partition: TopicPartition): PartitionLeader | undefined {
    const known = this.#leaders.get(partition.topic)?.get(partition.partition);
    if (known === undefined || known.leaderId === NO_LEADER) return undefined;
    const broker = this.#brokers.get(known.leaderId);
    if (broker === undefined) return undefined;
    // Asked for every fetchable partition on every pass of the fetcher: the answer is made once per leader and broker.
    const answered = known.answer;
    if (answered !== undefined && answered.broker === broker) return answered;
    const answer = { nodeId: known.leaderId, broker, epoch: known.leaderEpoch };
    known.answer = answer;
    return answer;
  }

  /** Applies a metadata response (Kafka's `Metadata.update`). */
  update(response: MetadataResponse): void {
    this.#version++;
    this.#brokers.clear();
    for (const broker of response.brokers) this.#brokers.set(broker.nodeId, broker.host);
    for (const topic of response.topics) {
      if (topic.errorCode !== ErrorCode.NONE) {
        // The topic is left out of the new cluster view: its partitions have no leader until a later update.
        this.#leaders.delete(topic.name);
        continue;
      }
      if (topic.topicId !== "" && topic.topicId !== ZERO_TOPIC_ID) this.#topicIds.set(topic.name, topic.topicId);
      const leaders = getOrCreate(this.#leaders, topic.name, () => new Map<number, LeaderAndEpoch>());
      for (const p of topic.partitions) {
        const known = leaders.get(p.partitionIndex);
        // An epoch older than the one we know comes from stale metadata: keep what we have.
        if (known !== undefined && p.leaderEpoch >= 0 && p.leaderEpoch < known.leaderEpoch) continue;
        const leaderId = p.errorCode === ErrorCode.NONE ? p.leaderId : NO_LEADER;
        leaders.set(p.partitionIndex, { leaderId, leaderEpoch: p.leaderEpoch });
      }
    }
  }
}
