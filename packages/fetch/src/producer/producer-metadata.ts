import { type ActorId, ErrorCode, type MetadataResponse, type Micros } from "@kcsim/protocol";

interface PartitionLeader {
  readonly leader: number;
  readonly leaderEpoch: number;
}

interface TopicMetadata {
  partitions: number;
  readonly leaders: Map<number, PartitionLeader>;
}

/**
 * The producer's view of the cluster (Kafka's `ProducerMetadata`): brokers
 * by node id (hosts are actor ids) and each partition's leader. A response
 * with an older leader epoch than the one known does not replace it (stale
 * metadata from a lagging broker, KIP-320). Refreshes are due when asked for
 * (leader errors, unknown leaders) no sooner than a backoff after the last
 * attempt (retry.backoff.ms doubling per failure up to retry.backoff.max.ms),
 * and every metadata.max.age.ms.
 */
export class ProducerMetadata {
  readonly #topics = new Map<string, TopicMetadata>();
  readonly #brokers = new Map<number, ActorId>();
  /** `brokerHosts()`, made once per update (the sender asks on every wake-up). */
  #brokerHosts: readonly ActorId[] | null = null;
  readonly #retryBackoff: Micros;
  readonly #retryBackoffMax: Micros;
  readonly #maxAge: Micros;
  /** Each topic's partitions with a known leader, as of the last update (computed when first asked). */
  readonly #available = new Map<string, readonly number[]>();
  #needUpdate = true;
  /** Counts the updates: partition counts and leaders change only with one. */
  #version = 0;
  #lastAttemptAt: Micros | null = null;
  #lastSuccessAt: Micros | null = null;
  #failures = 0;

  constructor(topics: readonly { name: string; partitions: number }[], retryBackoff: Micros, retryBackoffMax: Micros, maxAge: Micros) {
    for (const t of topics) this.#topics.set(t.name, { partitions: t.partitions, leaders: new Map() });
    this.#retryBackoff = retryBackoff;
    this.#retryBackoffMax = Math.max(retryBackoff, retryBackoffMax);
    this.#maxAge = maxAge;
  }

  topicNames(): string[] {
    return [...this.#topics.keys()];
  }

  /** Changes with every update (partition counts and leaders may have changed with it), and only then. */
  get version(): number {
    return this.#version;
  }

  partitionCount(topic: string): number {
    return this.#topics.get(topic)?.partitions ?? 0;
  }

  /** The leader's node id, if known and listed among the brokers. */
  leaderOf(topic: string, partition: number): number | undefined {
    const leader = this.#topics.get(topic)?.leaders.get(partition)?.leader;
    return leader !== undefined && leader >= 0 && this.#brokers.has(leader) ? leader : undefined;
  }

  hostOf(nodeId: number): ActorId | undefined {
    return this.#brokers.get(nodeId);
  }

  /** The brokers' hosts by node id (the same array until the next update: callers must not change it). */
  brokerHosts(): readonly ActorId[] {
    this.#brokerHosts ??= [...this.#brokers.entries()].sort((a, b) => a[0] - b[0]).map(([, host]) => host);
    return this.#brokerHosts;
  }

  /** Partitions with a known leader (Kafka's `availablePartitionsForTopic`); they change only with an update. */
  availablePartitions(topic: string): readonly number[] {
    const cached = this.#available.get(topic);
    if (cached !== undefined) return cached;
    const out: number[] = [];
    for (let p = 0; p < this.partitionCount(topic); p++) if (this.leaderOf(topic, p) !== undefined) out.push(p);
    this.#available.set(topic, out);
    return out;
  }

  requestUpdate(): void {
    this.#needUpdate = true;
  }

  /** When the next refresh may go out. */
  dueAt(): Micros {
    const backoff = Math.min(this.#retryBackoffMax, this.#retryBackoff * 2 ** Math.min(this.#failures, 30));
    const earliest = this.#lastAttemptAt === null ? 0 : this.#lastAttemptAt + backoff;
    if (this.#needUpdate || this.#lastSuccessAt === null) return earliest;
    return Math.max(earliest, this.#lastSuccessAt + this.#maxAge);
  }

  attempted(now: Micros): void {
    this.#lastAttemptAt = now;
  }

  failed(now: Micros): void {
    this.#lastAttemptAt = now;
    this.#failures++;
  }

  update(response: MetadataResponse, now: Micros): void {
    this.#version++;
    this.#available.clear();
    this.#brokers.clear();
    this.#brokerHosts = null;
    for (const b of response.brokers) this.#brokers.set(b.nodeId, b.host);
    for (const topic of response.topics) {
      const known = this.#topics.get(topic.name);
      if (known === undefined || topic.errorCode !== ErrorCode.NONE) continue;
      known.partitions = Math.max(known.partitions, topic.partitions.length);
      for (const p of topic.partitions) {
        const current = known.leaders.get(p.partitionIndex);
        if (current !== undefined && p.leaderEpoch < current.leaderEpoch) continue;
        known.leaders.set(p.partitionIndex, { leader: p.leaderId, leaderEpoch: p.leaderEpoch });
      }
    }
    this.#needUpdate = false;
    this.#lastSuccessAt = now;
    this.#lastAttemptAt = now;
    this.#failures = 0;
  }
}
