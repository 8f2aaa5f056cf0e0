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

  /** The classic group of that id, or undefined (also when the id names a consumer group). */
  classicGroup(groupId: string): ClassicGroup | undefined {
    const group = this.#groups.get(groupId);
    return group?.protocol === "classic" ? group : undefined;
  }

  /** A new, empty classic group (a JoinGroup with an unknown member id for a group that does not exist). */
  createClassicGroup(groupId: string, nowMs: number): ClassicGroup {
    if (this.#groups.has(groupId)) throw new IllegalStateError(`group ${groupId} already exists`);
    const group = new ClassicGroup(groupId, {
      state: "EMPTY",
      generationId: 0,
      protocolType: null,
      protocolName: null,
      leaderId: null,
      currentStateTimestampMs: nowMs,
    });
    this.#groups.set(groupId, group);
    return group;
  }

  /** Puts a group in place of whatever had its id (a loaded or converted group). */
  put(group: Group): void {
    this.#groups.set(group.groupId, group);
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
