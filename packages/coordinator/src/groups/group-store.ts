import { ClassicGroup } from "../classic-group/classic-group.js";
import { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import type { Group } from "./group.js";

/**
 * The groups hosted by one coordinator, by group id (Kafka's
 * `GroupMetadataManager.groups`). Iteration follows creation order.
 */
export class GroupStore {
  readonly #groups = new Map<string, Group>();

  get(groupId: string): Group | undefined {
    return this.#groups.get(groupId);
  }

  /** The consumer group of that id, or undefined (also when the id names a classic group). */
  consumerGroup(groupId: string): ConsumerGroup | undefined {
    const group = this.#groups.get(groupId);
    return group?.protocol === "consumer" ? group : undefined;
  }

  values(): IterableIterator<Group> {
    return this.#groups.values();
  }

  get size(): number {
    return this.#groups.size;
  }

  /**
   * A new, empty consumer group under that id, replacing a simple classic
   * group (offsets-only, not backed by records) if there is one.
   */
  createConsumerGroup(groupId: string): ConsumerGroup {
    const existing = this.#groups.get(groupId);
    if (existing !== undefined && !(existing.protocol === "classic" && existing.isSimpleGroup())) {
      throw new IllegalStateError(`group ${groupId} already exists as a ${existing.protocol} group`);
    }
    const group = new ConsumerGroup(groupId);
    this.#groups.set(groupId, group);
    return group;
  }

  /** The simple classic group created for offsets committed outside group management. */
  createSimpleClassicGroup(groupId: string): ClassicGroup {
    if (this.#groups.has(groupId)) throw new IllegalStateError(`group ${groupId} already exists`);
    const group = new ClassicGroup(groupId);
    this.#groups.set(groupId, group);
    return group;
  }

  /** Puts a group back exactly as it was (used to undo a failed operation). */
  restore(groupId: string, group: Group | undefined): void {
    if (group === undefined) this.#groups.delete(groupId);
    else this.#groups.set(groupId, group);
  }

  delete(groupId: string): void {
    this.#groups.delete(groupId);
  }
}
