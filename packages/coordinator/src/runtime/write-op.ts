import type { ActorId, Context, Message, Micros, Observation } from "@kcsim/protocol";
import type { Group } from "../groups/group.js";
import { type CoordinatorRecord, groupIdOf, RecordType } from "../records/coordinator-record.js";
import { replayRecord } from "../records/replay.js";
import type { Outgoing } from "./append-batcher.js";
import type { CoordinatorState } from "./coordinator-state.js";
import { memberObservation } from "./observation-builders.js";

/**
 * One write operation of the coordinator (a request or a timer; Kafka's
 * `CoordinatorWriteEvent`): the records it writes, each replayed into the
 * state the moment it is appended (so the rest of the operation reads the
 * new state), the observations it reports and the responses it sends (a
 * classic operation may answer several parked requests at once). The
 * runtime batches its records and releases its observations and responses
 * after the flush.
 */
export class WriteOp {
  readonly records: CoordinatorRecord[] = [];
  readonly observations: Observation[] = [];
  readonly responses: Outgoing[] = [];
  /** Groups whose state this operation may have changed (created, or written records for). */
  readonly touchedGroups = new Set<string>();
  /** Each touched group as it was before this operation touched it (undefined: it did not exist). */
  readonly groupsBefore = new Map<string, Group | undefined>();

  /**
   * @param firstRecordOffset the log position this operation's first record
   *   will take (records already stored plus those of the open batch).
   */
  constructor(
    readonly state: CoordinatorState,
    readonly ctx: Context,
    readonly now: Micros,
    readonly firstRecordOffset: number,
  ) {}

  /** Wall-clock milliseconds for record timestamps. */
  get nowMs(): number {
    return Math.floor(this.now / 1000);
  }

  append(record: CoordinatorRecord): void {
    this.#touchFor(record);
    const recordOffset = this.firstRecordOffset + this.records.length;
    this.records.push(record);
    replayRecord(this.state, record, recordOffset);
    // Every new current assignment is a gc.member (the contract: what a member holds changed).
    if (record.type === RecordType.ConsumerGroupCurrentMemberAssignment && record.value !== null) {
      const group = this.state.groups.consumerGroup(record.key.groupId);
      const member = group?.member(record.key.memberId);
      if (group !== undefined && member !== undefined) this.observations.push(memberObservation(group, member, this.state.image));
    }
  }

  /**
   * Appends a record without replaying it: classic groups live in memory
   * (their join/sync bookkeeping is volatile) and their GroupMetadata
   * records only serve the load after a restart (Kafka's
   * `replayRecords=false` for classic group results).
   */
  appendWithoutReplay(record: CoordinatorRecord): void {
    this.#touchFor(record);
    this.records.push(record);
  }

  observe(observation: Observation): void {
    this.observations.push(observation);
  }

  /** Sends `message` once the operation is complete (after the flush of its records). */
  respond(to: ActorId, message: Message): void {
    this.responses.push({ to, message });
  }

  /** Marks the group as changed by this operation; remembers it as it was before the first change. */
  touch(groupId: string): void {
    if (!this.groupsBefore.has(groupId)) this.groupsBefore.set(groupId, this.state.groups.get(groupId));
    this.touchedGroups.add(groupId);
  }

  #touchFor(record: CoordinatorRecord): void {
    const groupId = groupIdOf(record);
    if (groupId !== null) this.touch(groupId);
  }
}
