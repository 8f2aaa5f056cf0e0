import { ErrorCode, type Micros, type RecordBatch, type UpdateMetadataPartitionState, type VerificationGuard } from "@kcsim/protocol";
import { controlBatchOf, type EndTransactionMarker } from "../records/end-transaction-marker.js";
import { lastOffsetOf, type PartitionLog } from "./partition-log.js";
import { ReplicaState } from "./replica-state.js";

/** Kafka's "no leader" id. */
export const NO_LEADER = -1;

/** An ISR change a leader asks the controller for (one AlterPartition partition entry). */
export interface IsrProposal {
  readonly leaderEpoch: number;
  readonly newIsr: readonly number[];
  readonly partitionEpoch: number;
}

/**
 * The ISR as the leader sees it (Kafka's `PartitionState`): committed by the
 * controller, or with an expansion or shrink in flight. While an expansion
 * is pending the new member already counts for the high watermark (the
 * "maximal ISR", KIP-497); a pending shrink does not take effect until it is
 * committed.
 */
export type IsrState =
  | { readonly kind: "committed"; readonly isr: readonly number[] }
  | { readonly kind: "pending-expand"; readonly isr: readonly number[]; readonly adding: number; readonly proposal: IsrProposal }
  | {
      readonly kind: "pending-shrink";
      readonly isr: readonly number[];
      readonly removing: readonly number[];
      readonly proposal: IsrProposal;
    };

/** The controller's answer to an ISR proposal: the committed state, or an error code. */
export type AlterPartitionOutcome =
  | {
      readonly errorCode: 0;
      readonly leaderId: number;
      readonly leaderEpoch: number;
      readonly isr: readonly number[];
      readonly partitionEpoch: number;
    }
  | { readonly errorCode: number };

/** What a partition needs from the broker that hosts it. */
export interface PartitionHost {
  readonly brokerId: number;
  now(): Micros;
  /** replica.lag.time.max.ms, in micros. */
  readonly replicaLagTimeMax: Micros;
  /** min.insync.replicas. */
  readonly minInsyncReplicas: number;
  /** A follower may join the ISR only if its broker is registered and unfenced (KRaft). */
  isReplicaIsrEligible(brokerId: number): boolean;
  submitAlterPartition(partition: Partition, proposal: IsrProposal): void;
}

/**
 * An append's outcome on the leader: the offsets of the batch, and the
 * batch as appended, or null when the batch was a duplicate of an earlier
 * append of its producer (answered with that append's offsets).
 */
export type LeaderAppendResult =
  | {
      readonly errorCode: 0;
      readonly baseOffset: number;
      readonly lastOffset: number;
      readonly appended: RecordBatch | null;
      readonly highWatermarkIncremented: boolean;
    }
  | { readonly errorCode: number };

/**
 * One partition on one broker (Kafka's `Partition`): its log, its role
 * (leader, follower or none) at a leader epoch and partition epoch, and as
 * leader the ISR and the followers' fetch state, from which it moves the
 * high watermark and proposes ISR changes.
 */
export class Partition {
  readonly topic: string;
  readonly topicId: string;
  readonly index: number;
  readonly log: PartitionLog;
  readonly #host: PartitionHost;
  #replicas: readonly number[] = [];
  /** Whether this broker is among the replicas (read by `role` on every fetch and append). */
  #isReplica = false;
  leaderId = NO_LEADER;
  leaderEpoch = -1;
  partitionEpoch = -1;
  isrState: IsrState = { kind: "committed", isr: [] };
  /** The log end offset when this broker's current leader epoch began (leaders only). */
  leaderEpochStartOffset: number | null = null;
  readonly remoteReplicas = new Map<number, ReplicaState>();
  /** Moves on with every change of role, epochs, replicas or ISR (see `version`). */
  #stateVersion = 0;

  constructor(topic: string, topicId: string, index: number, log: PartitionLog, host: PartitionHost) {
    this.topic = topic;
    this.topicId = topicId;
    this.index = index;
    this.log = log;
    this.#host = host;
  }

  /**
   * Moves on with every change a fetch can see, here or in the log: equal
   * versions mean a read of this partition would find it as it was.
   */
  get version(): number {
    return this.#stateVersion + this.log.version;
  }

  get isLeader(): boolean {
    return this.leaderId === this.#host.brokerId;
  }

  get replicas(): readonly number[] {
    return this.#replicas;
  }

  get role(): "leader" | "follower" | "none" {
    if (this.partitionEpoch < 0 || !this.#isReplica) return "none";
    return this.isLeader ? "leader" : "follower";
  }

  get isr(): readonly number[] {
    return this.isrState.isr;
  }

  /** The committed ISR plus a member being added (KIP-497). */
  get maximalIsr(): readonly number[] {
    return this.isrState.kind === "pending-expand" ? [...this.isrState.isr, this.isrState.adding] : this.isrState.isr;
  }

  /** min.insync.replicas, capped at the replication factor. */
  get effectiveMinIsr(): number {
    return Math.min(this.#host.minInsyncReplicas, this.replicas.length);
  }

  get isUnderMinIsr(): boolean {
    return this.isLeader && this.isrState.isr.length < this.effectiveMinIsr;
  }

  /**
   * Becomes (or stays) leader by a metadata update (Kafka's `makeLeader`).
   * States older than the known partition epoch are skipped. A new leader
   * epoch starts at the log end: it is recorded in the epoch cache and the
   * followers' states are reset. Returns whether the state was applied and
   * whether the high watermark moved.
   */
  makeLeader(state: UpdateMetadataPartitionState): { applied: boolean; highWatermarkIncremented: boolean } {
    if (state.zkVersion < this.partitionEpoch) return { applied: false, highWatermarkIncremented: false };
    this.#stateVersion++;
    const now = this.#host.now();
    const isNewLeader = !this.isLeader;
    const isNewLeaderEpoch = state.leaderEpoch > this.leaderEpoch;
    this.#updateAssignmentAndIsr(state.replicas, true, state.isr);
    if (isNewLeaderEpoch) {
      const startOffset = this.log.logEndOffset;
      this.log.assignEpochStartOffset(state.leaderEpoch, startOffset);
      for (const replica of this.remoteReplicas.values()) {
        replica.reset(now, startOffset, isNewLeader, state.isr.includes(replica.brokerId));
      }
      this.leaderEpoch = state.leaderEpoch;
      this.leaderEpochStartOffset = startOffset;
    }
    this.partitionEpoch = state.zkVersion;
    this.leaderId = this.#host.brokerId;
    return { applied: true, highWatermarkIncremented: this.maybeIncrementLeaderHighWatermark() };
  }

  /**
   * Becomes (or stays) a follower by a metadata update (Kafka's
   * `makeFollower`). Returns undefined if the state was skipped, else whether
   * the leader epoch changed (the fetcher must restart and truncate then).
   */
  makeFollower(state: UpdateMetadataPartitionState): boolean | undefined {
    if (state.zkVersion < this.partitionEpoch) return undefined;
    this.#stateVersion++;
    const isNewLeaderEpoch = state.leaderEpoch > this.leaderEpoch;
    this.leaderId = state.leader;
    this.leaderEpoch = state.leaderEpoch;
    this.leaderEpochStartOffset = null;
    this.partitionEpoch = state.zkVersion;
    this.#updateAssignmentAndIsr(state.replicas, false, state.isr);
    return isNewLeaderEpoch;
  }

  #updateAssignmentAndIsr(replicas: readonly number[], isLeader: boolean, isr: readonly number[]): void {
    this.#replicas = [...replicas];
    this.#isReplica = replicas.includes(this.#host.brokerId);
    if (isLeader) {
      for (const id of replicas) {
        if (id !== this.#host.brokerId && !this.remoteReplicas.has(id)) this.remoteReplicas.set(id, new ReplicaState(id));
      }
      for (const id of [...this.remoteReplicas.keys()]) if (!replicas.includes(id)) this.remoteReplicas.delete(id);
    } else {
      this.remoteReplicas.clear();
    }
    this.isrState = { kind: "committed", isr: [...isr] };
  }

  /**
   * Appends a producer's batch as leader (Kafka's `appendRecordsToLeader`
   * with `UnifiedLog.append` for a client): the producer state decides
   * whether it is appended, answered as a duplicate, or refused
   * (INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_TXN_STATE),
   * a transactional batch by its verification guard too (null: not verified);
   * `supportsEpochBump`: the batch comes from a producer of transaction
   * version 2 (Produce v12+), checked by Kafka 4.2's rules.
   */
  appendRecordsToLeader(
    batch: RecordBatch,
    requiredAcks: number,
    nowMs: number,
    verificationGuard: VerificationGuard | null = null,
    supportsEpochBump = false,
  ): LeaderAppendResult {
    if (!this.isLeader) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    // Avoid writing to the leader if there are not enough in-sync replicas to make it safe.
    if (requiredAcks === -1 && this.isrState.isr.length < this.effectiveMinIsr) return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS };
    const check = this.log.producerState.checkClientAppend(batch, verificationGuard, supportsEpochBump);
    if (check.kind === "error") return { errorCode: check.errorCode };
    if (check.kind === "duplicate") {
      return {
        errorCode: ErrorCode.NONE,
        baseOffset: check.firstOffset,
        lastOffset: check.lastOffset,
        appended: null,
        highWatermarkIncremented: false,
      };
    }
    return this.#appendAsLeader(batch, nowMs);
  }

  /**
   * Appends a transaction marker for a producer as leader (Kafka's append
   * with origin COORDINATOR, acks=all): refused with INVALID_PRODUCER_EPOCH
   * for an epoch the marker may not carry (older than the producer's; for
   * `transactionVersion` 2, not newer unless a retry of a transaction
   * already ended here), TRANSACTION_COORDINATOR_FENCED for an older
   * coordinator epoch.
   */
  appendMarkerToLeader(
    producerId: number,
    producerEpoch: number,
    marker: EndTransactionMarker,
    nowMs: number,
    transactionVersion: number,
  ): LeaderAppendResult {
    if (!this.isLeader) return { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    if (this.isrState.isr.length < this.effectiveMinIsr) return { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS };
    const errorCode = this.log.producerState.checkMarker(producerId, producerEpoch, marker.coordinatorEpoch, transactionVersion);
    if (errorCode !== ErrorCode.NONE) return { errorCode };
    return this.#appendAsLeader(controlBatchOf(producerId, producerEpoch, marker, nowMs), nowMs);
  }

  #appendAsLeader(batch: RecordBatch, nowMs: number): LeaderAppendResult {
    const appended = this.log.appendAsLeader(batch, this.leaderEpoch, nowMs);
    return {
      errorCode: ErrorCode.NONE,
      baseOffset: appended.baseOffset,
      lastOffset: lastOffsetOf(appended),
      appended,
      highWatermarkIncremented: this.maybeIncrementLeaderHighWatermark(),
    };
  }

  /**
   * The high watermark is the smallest log end offset among the maximal ISR
   * and the followers caught up enough to join it (Kafka's
   * `maybeIncrementLeaderHW`). It does not move while the ISR is below
   * min.insync.replicas (KIP-966). Returns whether it moved.
   */
  maybeIncrementLeaderHighWatermark(): boolean {
    if (!this.isLeader || this.isUnderMinIsr) return false;
    const now = this.#host.now();
    const leaderEnd = this.log.logEndOffset;
    const maximal = this.maximalIsr;
    let newHighWatermark = leaderEnd;
    for (const replica of this.remoteReplicas.values()) {
      if (replica.logEndOffset >= newHighWatermark) continue;
      const waitForIt =
        maximal.includes(replica.brokerId) ||
        (replica.isCaughtUp(leaderEnd, now, this.#host.replicaLagTimeMax) && this.#host.isReplicaIsrEligible(replica.brokerId));
      if (waitForIt) newHighWatermark = replica.logEndOffset;
    }
    return this.log.maybeIncrementHighWatermark(newHighWatermark);
  }

  /**
   * Records a follower's fetch at `fetchOffset` (Kafka's
   * `updateFollowerFetchState`, with the fetch's time as Kafka passes
   * followerFetchTimeMs), proposes adding it to the ISR if it caught up, and
   * returns whether the high watermark moved.
   */
  updateFollowerFetchState(
    replicaId: number,
    fetchOffset: number,
    followerLogStartOffset: number,
    leaderEndOffset: number,
    fetchTime: Micros,
  ): boolean {
    const replica = this.remoteReplicas.get(replicaId);
    if (replica === undefined) return false;
    const previousEnd = replica.logEndOffset;
    replica.updateFetchState(fetchOffset, followerLogStartOffset, fetchTime, leaderEndOffset);
    this.#maybeExpandIsr(replica);
    return previousEnd !== replica.logEndOffset && this.maybeIncrementLeaderHighWatermark();
  }

  /**
   * A follower joins the ISR once its log end reaches the high watermark and
   * the start of the current leader epoch (so it holds every committed
   * record), and its broker is eligible.
   */
  #maybeExpandIsr(replica: ReplicaState): void {
    const state = this.isrState;
    if (!this.isLeader || state.kind !== "committed" || state.isr.includes(replica.brokerId)) return;
    if (!this.#host.isReplicaIsrEligible(replica.brokerId)) return;
    const start = this.leaderEpochStartOffset;
    if (start === null || replica.logEndOffset < this.log.highWatermark || replica.logEndOffset < start) return;
    const proposal = { leaderEpoch: this.leaderEpoch, newIsr: [...state.isr, replica.brokerId], partitionEpoch: this.partitionEpoch };
    this.#stateVersion++;
    this.isrState = { kind: "pending-expand", isr: state.isr, adding: replica.brokerId, proposal };
    this.#host.submitAlterPartition(this, proposal);
  }

  /**
   * The periodic ISR check (Kafka's `maybeShrinkIsr`, every
   * replica.lag.time.max.ms / 2): followers that have not been caught up with
   * the leader's log end within replica.lag.time.max.ms are proposed out.
   */
  maybeShrinkIsr(): void {
    const state = this.isrState;
    if (!this.isLeader || state.kind !== "committed") return;
    const now = this.#host.now();
    const leaderEnd = this.log.logEndOffset;
    const outOfSync = state.isr.filter((id) => {
      if (id === this.#host.brokerId) return false;
      const replica = this.remoteReplicas.get(id);
      return replica === undefined || !replica.isCaughtUp(leaderEnd, now, this.#host.replicaLagTimeMax);
    });
    if (outOfSync.length === 0) return;
    const proposal = {
      leaderEpoch: this.leaderEpoch,
      newIsr: state.isr.filter((id) => !outOfSync.includes(id)),
      partitionEpoch: this.partitionEpoch,
    };
    this.#stateVersion++;
    this.isrState = { kind: "pending-shrink", isr: state.isr, removing: outOfSync, proposal };
    this.#host.submitAlterPartition(this, proposal);
  }

  /**
   * Applies the controller's answer to `proposal` (Kafka's
   * `handleAlterPartitionUpdate` / `handleAlterPartitionError`). Answers to a
   * proposal that is no longer pending are ignored. Returns whether to send
   * the proposal again, and whether the high watermark moved.
   */
  handleAlterPartitionOutcome(
    proposal: IsrProposal,
    outcome: AlterPartitionOutcome,
  ): { retry: boolean; highWatermarkIncremented: boolean } {
    const state = this.isrState;
    const unchanged = { retry: false, highWatermarkIncremented: false };
    if (state.kind === "committed" || state.proposal !== proposal) return unchanged;
    this.#stateVersion++;
    if ("leaderId" in outcome) {
      if (outcome.leaderEpoch !== this.leaderEpoch || outcome.partitionEpoch < this.partitionEpoch) return unchanged;
      this.isrState = { kind: "committed", isr: [...outcome.isr] };
      this.partitionEpoch = outcome.partitionEpoch;
      return { retry: false, highWatermarkIncremented: this.maybeIncrementLeaderHighWatermark() };
    }
    switch (outcome.errorCode) {
      case ErrorCode.OPERATION_NOT_ATTEMPTED:
      case ErrorCode.INELIGIBLE_REPLICA:
        // The controller says the request was not applied and our partition epoch is right: back to the committed state.
        this.isrState = { kind: "committed", isr: state.isr };
        return unchanged;
      case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      case ErrorCode.UNKNOWN_TOPIC_ID:
      case ErrorCode.FENCED_LEADER_EPOCH:
      case ErrorCode.INVALID_UPDATE_VERSION:
      case ErrorCode.INVALID_REQUEST:
      case ErrorCode.NEW_LEADER_ELECTED:
        // Our state is stale: stay pending until new metadata replaces it.
        return unchanged;
      default:
        return { retry: true, highWatermarkIncremented: false };
    }
  }

  /**
   * Whether an acks=all append ending before `requiredOffset` is committed
   * (Kafka's `checkEnoughReplicasReachOffset`): done once the high watermark
   * covers it, with NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR fell below
   * min.insync.replicas meanwhile; NOT_LEADER_OR_FOLLOWER once no longer leader.
   */
  checkEnoughReplicasReachOffset(requiredOffset: number): { done: boolean; errorCode: number } {
    if (!this.isLeader) return { done: true, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    if (this.log.highWatermark < requiredOffset) return { done: false, errorCode: ErrorCode.NONE };
    const errorCode = this.effectiveMinIsr <= this.maximalIsr.length ? ErrorCode.NONE : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
    return { done: true, errorCode };
  }

  /**
   * Checks a request's leader epoch and, when `requireLeader`, leadership
   * (Kafka's `getLocalLog`): FENCED_LEADER_EPOCH for an older epoch,
   * UNKNOWN_LEADER_EPOCH for a newer one (-1 skips the check).
   */
  checkLeaderEpoch(currentLeaderEpoch: number, requireLeader: boolean): number {
    if (currentLeaderEpoch >= 0) {
      if (this.leaderEpoch > currentLeaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
      if (this.leaderEpoch < currentLeaderEpoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
    }
    if (requireLeader && !this.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    return ErrorCode.NONE;
  }
}
