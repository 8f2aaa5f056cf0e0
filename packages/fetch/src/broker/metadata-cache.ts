import {
  ErrorCode,
  type MetadataBroker,
  type MetadataRequest,
  type MetadataTopic,
  type UpdateMetadataPartitionState,
  type UpdateMetadataRequest,
} from "@kcsim/protocol";
import { type ClusterLayout, initialReplicas, metadataBrokerOf } from "../cluster/cluster-layout.js";
import { ZERO_TOPIC_ID } from "../session/topic-id-partition.js";

/** A partition state the cache took from an update, with its topic. */
export interface PartitionStateChange {
  readonly topic: string;
  readonly topicId: string;
  readonly state: UpdateMetadataPartitionState;
}

interface CachedTopic {
  readonly name: string;
  readonly id: string;
  readonly partitions: Map<number, UpdateMetadataPartitionState>;
}

/**
 * A broker's view of the cluster metadata (Kafka's `MetadataCache`): the
 * live (unfenced) brokers, each partition's leader, epochs, replicas and
 * ISR, as pushed by the controller with UpdateMetadata. Partition states
 * only move forward: a state whose partition epoch (`zkVersion`) is not
 * newer than the cached one is ignored, so late, duplicated or reordered
 * updates change nothing.
 */
export class MetadataCache {
  readonly #topics = new Map<string, CachedTopic>();
  readonly #namesById = new Map<string, string>();
  #liveBrokers: MetadataBroker[] = [];
  #controllerEpoch = -1;
  /** The correlation id of the newest update applied (the broker's "metadata offset"). */
  #appliedOffset = -1;
  #version = 0;

  /** Moves on with every bootstrap or update applied: equal versions mean the same metadata. */
  get version(): number {
    return this.#version;
  }

  get controllerEpoch(): number {
    return this.#controllerEpoch;
  }

  get appliedOffset(): number {
    return this.#appliedOffset;
  }

  /** The state a cluster starts from (every broker live, initial placement at epoch 0), for a broker's very first start. */
  bootstrap(layout: ClusterLayout): PartitionStateChange[] {
    this.#version++;
    this.#liveBrokers = layout.brokers.map(metadataBrokerOf);
    const changes: PartitionStateChange[] = [];
    for (const topic of layout.topics) {
      for (let p = 0; p < topic.partitions; p++) {
        const replicas = initialReplicas(p, layout.brokers, topic.replicationFactor);
        const state: UpdateMetadataPartitionState = {
          partitionIndex: p,
          controllerEpoch: 0,
          leader: replicas[0] as number,
          leaderEpoch: 0,
          isr: replicas,
          zkVersion: 0,
          replicas,
          offlineReplicas: [],
        };
        if (this.#put(topic.name, topic.id, state)) changes.push({ topic: topic.name, topicId: topic.id, state });
      }
    }
    return changes;
  }

  /**
   * Applies an UpdateMetadata request: undefined if it comes from an older
   * controller epoch (stale), else the partition states that were newer.
   */
  update(request: UpdateMetadataRequest): PartitionStateChange[] | undefined {
    if (request.controllerEpoch < this.#controllerEpoch) return undefined;
    this.#version++;
    this.#controllerEpoch = request.controllerEpoch;
    this.#liveBrokers = [...request.liveBrokers].sort((a, b) => a.nodeId - b.nodeId);
    this.#appliedOffset = Math.max(this.#appliedOffset, request.correlationId);
    const changes: PartitionStateChange[] = [];
    for (const topic of request.topicStates) {
      for (const state of topic.partitionStates) {
        if (this.#put(topic.topicName, topic.topicId, state)) changes.push({ topic: topic.topicName, topicId: topic.topicId, state });
      }
    }
    return changes;
  }

  #put(topicName: string, topicId: string, state: UpdateMetadataPartitionState): boolean {
    let topic = this.#topics.get(topicName);
    if (topic === undefined) {
      topic = { name: topicName, id: topicId, partitions: new Map() };
      this.#topics.set(topicName, topic);
      this.#namesById.set(topicId, topicName);
    }
    const cached = topic.partitions.get(state.partitionIndex);
    if (cached !== undefined && state.zkVersion <= cached.zkVersion) return false;
    topic.partitions.set(state.partitionIndex, state);
    return true;
  }

  topicName(topicId: string): string | undefined {
    return this.#namesById.get(topicId);
  }

  topicId(topicName: string): string | undefined {
    return this.#topics.get(topicName)?.id;
  }

  partitionState(topic: string, partition: number): UpdateMetadataPartitionState | undefined {
    return this.#topics.get(topic)?.partitions.get(partition);
  }

  contains(topic: string, partition: number): boolean {
    return this.partitionState(topic, partition) !== undefined;
  }

  /** Registered and unfenced, as of the last update. */
  isBrokerAlive(brokerId: number): boolean {
    return this.#liveBrokers.some((b) => b.nodeId === brokerId);
  }

  liveBrokers(): readonly MetadataBroker[] {
    return this.#liveBrokers;
  }

  /**
   * The answer to a Metadata request (Kafka's `getTopicMetadata`): every
   * topic when `topics` is null, else the named ones (by name, or by id when
   * the name is null); unknown ones carry UNKNOWN_TOPIC_OR_PARTITION /
   * UNKNOWN_TOPIC_ID. A partition without a live leader reports
   * LEADER_NOT_AVAILABLE and leader -1. No topic is auto-created.
   */
  describeTopics(request: MetadataRequest): MetadataTopic[] {
    if (request.topics === null) return [...this.#topics.values()].map((t) => this.#describe(t));
    return request.topics.map(({ name, topicId }) => {
      const known = name !== null ? this.#topics.get(name) : this.#topics.get(this.#namesById.get(topicId ?? "") ?? "");
      if (known !== undefined) return this.#describe(known);
      return {
        errorCode: name !== null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.UNKNOWN_TOPIC_ID,
        name: name ?? "",
        topicId: topicId ?? ZERO_TOPIC_ID,
        isInternal: false,
        partitions: [],
      };
    });
  }

  /** The controller id for Metadata responses: KRaft answers with a live broker (here the first), -1 if none. */
  get controllerId(): number {
    return this.#liveBrokers[0]?.nodeId ?? -1;
  }

  #describe(topic: CachedTopic): MetadataTopic {
    const partitions = [...topic.partitions.values()]
      .sort((a, b) => a.partitionIndex - b.partitionIndex)
      .map((state) => {
        const leaderKnown = state.leader >= 0 && this.#liveBrokers.some((b) => b.nodeId === state.leader);
        return {
          errorCode: leaderKnown ? ErrorCode.NONE : ErrorCode.LEADER_NOT_AVAILABLE,
          partitionIndex: state.partitionIndex,
          leaderId: leaderKnown ? state.leader : -1,
          leaderEpoch: state.leaderEpoch,
          replicaNodes: [...state.replicas],
          isrNodes: [...state.isr],
        };
      });
    return { errorCode: ErrorCode.NONE, name: topic.name, topicId: topic.id, isInternal: false, partitions };
  }
}
