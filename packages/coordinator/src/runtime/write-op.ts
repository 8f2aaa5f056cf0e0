import type { Context, Micros, Observation } from "@kcsim/protocol";
import { type CoordinatorRecord, groupIdOf, RecordType } from "../records/coordinator-record.js";
import { replayRecord } from "../records/replay.js";
import type { CoordinatorState } from "./coordinator-state.js";
import { memberObservation } from "./observation-builders.js";

/**
 * One write operation of the coordinator (a request or a timer; Kafka's
 * `CoordinatorWriteEvent`): the records it writes, each replayed into the
 * state the moment it is appended (so the rest of the operation reads the
 * new state), and the observations it reports. The runtime batches its
 * records and releases its observations and response after the flush.
 */
export class WriteOp {
  readonly records: CoordinatorRecord[] = [];
  readonly observations: Observation[] = [];
  /** Groups whose state this operation may have changed (created, or written records for). */
  readonly touchedGroups = new Set<string>();

  constructor(
    readonly state: CoordinatorState,
    readonly ctx: Context,
    readonly now: Micros,
  ) {}

  /** Wall-clock milliseconds for record timestamps. */
  get nowMs(): number {
    return Math.floor(this.now / 1000);
  }

  append(record: CoordinatorRecord): void {
    this.records.push(record);
    replayRecord(this.state, record);
    const groupId = groupIdOf(record);
    if (groupId !== null) this.touchedGroups.add(groupId);
    // Every new current assignment is a gc.member (the contract: what a member holds changed).
    if (record.type === RecordType.ConsumerGroupCurrentMemberAssignment && record.value !== null) {
      const group = this.state.groups.consumerGroup(record.key.groupId);
      const member = group?.member(record.key.memberId);
      if (group !== undefined && member !== undefined) this.observations.push(memberObservation(group, member, this.state.image));
    }
  }

  observe(observation: Observation): void {
    this.observations.push(observation);
  }

  touch(groupId: string): void {
    this.touchedGroups.add(groupId);
  }
}
