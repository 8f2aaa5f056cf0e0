import { type Context, type PartitionsByTopic, partitionsByTopic, type TopicPartition } from "@kcsim/protocol";
import type {
  CallbackObservation,
  ClassicMemberState,
  ClientMemberState,
  CommitObservation,
  CoordinatorObservation,
  FatalObservation,
  MemberStateObservation,
  OwnedPartitionsObservation,
  PollObservation,
  PollTimeoutObservation,
  PollTimerResetObservation,
  ProcessedBatchObservation,
  RebalanceCallback,
  RecordRange,
  RecordsObservation,
  SinkWriteObservation,
} from "../observations.js";

export type OwnershipChangeCause = OwnedPartitionsObservation["cause"];
export type CommitKind = CommitObservation["kind"];
export type CommittedTopics = CommitObservation["topics"];
/** What `batch` reports, less who reports it. */
export type ProcessedBatch = Omit<ProcessedBatchObservation, "type" | "groupId" | "memberId" | "memberEpoch">;
/** What `sinkWrite` reports, less who reports it. */
export type SinkWrite = Omit<SinkWriteObservation, "type" | "groupId" | "memberId">;

/** Who the observations are about. The classic member's id and generation change as it joins, hence functions. */
export interface ObservedMember {
  readonly groupId: string;
  readonly protocol: MemberStateObservation["protocol"];
  memberId(): string;
  /** The member epoch (KIP-848) or the generation (classic). */
  memberEpoch(): number;
}

/** Reports what the consumer does to the history, in the shapes of observations.ts. */
export class MemberObserver {
  readonly #groupId: string;
  readonly #protocol: MemberStateObservation["protocol"];
  readonly #member: ObservedMember;

  constructor(member: ObservedMember) {
    this.#groupId = member.groupId;
    this.#protocol = member.protocol;
    this.#member = member;
  }

  get #memberId(): string {
    return this.#member.memberId();
  }

  #memberEpoch(): number {
    return this.#member.memberEpoch();
  }

  state(ctx: Context, from: ClientMemberState | ClassicMemberState, to: ClientMemberState | ClassicMemberState): void {
    ctx.observe({
      type: "member.state",
      groupId: this.#groupId,
      memberId: this.#memberId,
      protocol: this.#protocol,
      from,
      to,
      memberEpoch: this.#memberEpoch(),
    } satisfies MemberStateObservation);
  }

  owned(ctx: Context, owned: Iterable<TopicPartition>, cause: OwnershipChangeCause): void {
    ctx.observe({
      type: "member.owned",
      groupId: this.#groupId,
      memberId: this.#memberId,
      memberEpoch: this.#memberEpoch(),
      owned: partitionsByTopic(owned),
      cause,
    } satisfies OwnedPartitionsObservation);
  }

  callback(ctx: Context, callback: RebalanceCallback, phase: "start" | "end", partitions: PartitionsByTopic): void {
    ctx.observe({
      type: "member.callback",
      groupId: this.#groupId,
      memberId: this.#memberId,
      callback,
      phase,
      partitions,
    } satisfies CallbackObservation);
  }

  /** poll() returned no records (one that returned records is observed by `records`). */
  emptyPoll(ctx: Context): void {
    ctx.observe({ type: "member.poll", memberId: this.#memberId } satisfies PollObservation);
  }

  pollTimerReset(ctx: Context): void {
    ctx.observe({ type: "member.poll-timer-reset", memberId: this.#memberId } satisfies PollTimerResetObservation);
  }

  pollTimeout(ctx: Context, lastPollUs: number, maxPollIntervalMs: number): void {
    ctx.observe({
      type: "member.poll-timeout",
      groupId: this.#groupId,
      memberId: this.#memberId,
      lastPollUs,
      maxPollIntervalMs,
    } satisfies PollTimeoutObservation);
  }

  /** poll() returned records: a range per partition. */
  records(ctx: Context, ranges: readonly RecordRange[]): void {
    ctx.observe({ type: "member.records", memberId: this.#memberId, ranges } satisfies RecordsObservation);
  }

  commit(ctx: Context, kind: CommitKind, memberEpoch: number, topics: CommittedTopics, result: string): void {
    ctx.observe({
      type: "member.commit",
      groupId: this.#groupId,
      memberId: this.#memberId,
      memberEpoch,
      kind,
      topics,
      result,
    } satisfies CommitObservation);
  }

  coordinator(ctx: Context, coordinator: string | null): void {
    ctx.observe({
      type: "member.coordinator",
      groupId: this.#groupId,
      memberId: this.#memberId,
      coordinator,
    } satisfies CoordinatorObservation);
  }

  batch(ctx: Context, batch: ProcessedBatch): void {
    ctx.observe({
      type: "member.batch",
      groupId: this.#groupId,
      memberId: this.#memberId,
      memberEpoch: this.#memberEpoch(),
      ...batch,
    } satisfies ProcessedBatchObservation);
  }

  sinkWrite(ctx: Context, write: SinkWrite): void {
    ctx.observe({ type: "sink.write", groupId: this.#groupId, memberId: this.#memberId, ...write } satisfies SinkWriteObservation);
  }

  fatal(ctx: Context, error: string): void {
    ctx.observe({ type: "member.fatal", groupId: this.#groupId, memberId: this.#memberId, error } satisfies FatalObservation);
  }
}
