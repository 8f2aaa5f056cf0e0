import type { TopicPartition } from "@kcsim/protocol";
import { javaHashCapacity, javaHashIterationOrder, topicPartitionHashCode } from "../java-hash-order.js";
import { keyOf } from "../topic-partitions.js";

interface ConsumerPair {
  readonly src: string;
  readonly dst: string;
}

/**
 * A Java `HashSet<TopicPartition>` reduced to what the balancer asks of it:
 * membership, and which element it would iterate first. Insertion order is
 * kept (a re-added element goes last, as in a Java bucket) and so is the
 * peak size, which fixes the table capacity.
 */
class PartitionHashSet {
  private readonly members = new Map<string, TopicPartition>();
  private peakSize = 0;

  add(tp: TopicPartition): void {
    this.members.set(keyOf(tp), tp);
    this.peakSize = Math.max(this.peakSize, this.members.size);
  }

  delete(tp: TopicPartition): void {
    this.members.delete(keyOf(tp));
  }

  get size(): number {
    return this.members.size;
  }

  first(): TopicPartition | undefined {
    return javaHashIterationOrder([...this.members.values()], topicPartitionHashCode, javaHashCapacity(this.peakSize))[0];
  }
}

const pairKey = (src: string, dst: string): string => JSON.stringify([src, dst]);

/**
 * `AbstractStickyAssignor.PartitionMovements`: the moves made during one
 * balancing run, so that moving a partition of a topic back along an earlier
 * move of the same topic moves that earlier partition instead (keeping moves
 * of one topic between two members one-directional).
 */
export class PartitionMovements {
  private readonly byTopic = new Map<string, Map<string, PartitionHashSet>>();
  private readonly movements = new Map<string, ConsumerPair>();

  private removeRecord(tp: TopicPartition): ConsumerPair | undefined {
    const key = keyOf(tp);
    const pair = this.movements.get(key);
    if (pair === undefined) return undefined;
    this.movements.delete(key);
    const topicMoves = this.byTopic.get(tp.topic);
    const set = topicMoves?.get(pairKey(pair.src, pair.dst));
    set?.delete(tp);
    if (set !== undefined && set.size === 0) topicMoves?.delete(pairKey(pair.src, pair.dst));
    if (topicMoves !== undefined && topicMoves.size === 0) this.byTopic.delete(tp.topic);
    return pair;
  }

  private addRecord(tp: TopicPartition, pair: ConsumerPair): void {
    this.movements.set(keyOf(tp), pair);
    let topicMoves = this.byTopic.get(tp.topic);
    if (topicMoves === undefined) {
      topicMoves = new Map();
      this.byTopic.set(tp.topic, topicMoves);
    }
    const key = pairKey(pair.src, pair.dst);
    let set = topicMoves.get(key);
    if (set === undefined) {
      set = new PartitionHashSet();
      topicMoves.set(key, set);
    }
    set.add(tp);
  }

  movePartition(tp: TopicPartition, oldConsumer: string, newConsumer: string): void {
    const existing = this.removeRecord(tp);
    if (existing === undefined) this.addRecord(tp, { src: oldConsumer, dst: newConsumer });
    else if (existing.src !== newConsumer) this.addRecord(tp, { src: existing.src, dst: newConsumer });
    // else: the partition went back to where it started; no movement remains.
  }

  /** The partition to actually move when `tp` should go from `oldConsumer` to `newConsumer`. */
  actualPartitionToMove(tp: TopicPartition, oldConsumer: string, newConsumer: string): TopicPartition {
    const topicMoves = this.byTopic.get(tp.topic);
    if (topicMoves === undefined) return tp;
    const source = this.movements.get(keyOf(tp))?.src ?? oldConsumer;
    return topicMoves.get(pairKey(newConsumer, source))?.first() ?? tp;
  }
}
