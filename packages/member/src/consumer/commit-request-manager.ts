import type { RecordSource } from "@kcsim/fetch";
import {
  type Context,
  ErrorCode,
  type ExponentialBackoff,
  errorName,
  type Micros,
  ms,
  NO_PARTITION_LEADER_EPOCH,
  type OffsetCommitResponse,
  type TopicPartition,
} from "@kcsim/protocol";
import type { AssignedPartitions } from "./assigned-partitions.js";
import { AutoCommitTimer } from "./auto-commit-timer.js";
import { type CommitIdentity, type CommitProtocol, type CommitRefusal, isRefusal } from "./commit-protocol.js";
import type { CoordinatorManager } from "./coordinator-manager.js";
import type { MemberIdentity } from "./member-identity.js";
import type { CommitKind, CommittedTopics, MemberObserver } from "./member-observer.js";
import type { RequestChannel, TransportFailure } from "./request-channel.js";
import { RequestState } from "./request-state.js";

/**
 * Called once when a commit is over: committed (true) or given up (false);
 * `retriable` says whether its last attempt failed with an error the client
 * may retry (a transport failure or a retriable error code).
 */
export type CommitDone = (ctx: Context, committed: boolean, retriable: boolean) => void;

/**
 * How a failed commit is retried (`CommitRequestManager`):
 * - `none`: the interval auto-commit (async): never retried; a retriable
 *   error only brings the next auto-commit forward to the backoff;
 * - `sync`: commitSync (user, close): retriable errors retried until the
 *   deadline; STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID are a
 *   CommitFailedException;
 * - `before-revocation`: the auto-commit before a revocation: retries what
 *   the protocol says (KIP-848: also STALE_MEMBER_EPOCH, with the fresh
 *   epoch, but not a deleted topic), until the deadline, each retry with the
 *   positions consumed by the time the attempt failed (Kafka's
 *   `autoCommitSyncBeforeRevocationWithRetries`).
 */
type RetryPolicy = "none" | "sync" | "before-revocation";

interface PendingCommit {
  readonly kind: CommitKind;
  readonly retry: RetryPolicy;
  readonly deadline: Micros;
  readonly state: RequestState;
  readonly onDone: CommitDone;
  /** An auto-commit (on the interval, before a revocation, on close): while pending, it holds the interval auto-commit back where AutoCommitState does. */
  readonly auto: boolean;
  offsets: readonly ConsumedPosition[];
}

/** A position to commit. */
interface ConsumedPosition {
  readonly partition: TopicPartition;
  readonly offset: number;
}

/** Errors a commit may retry (Kafka's retriable ones the commit path sees). */
const RETRIABLE = new Set<number>([
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NETWORK_EXCEPTION,
]);

/** Errors that mean the coordinator is not where the member thinks. */
const COORDINATOR_ERRORS = new Set<number>([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.REQUEST_TIMED_OUT]);

/** A commit whose deadline passed before it could be sent. */
const NOT_SENT_IN_TIME: TransportFailure = "TIMEOUT";

export interface CommitSettings {
  readonly autoCommit: boolean;
  readonly autoCommitIntervalMs: number;
}

/**
 * OffsetCommit (v9) for every way the consumer commits (spec 5): the
 * auto-commit on the interval inside poll, the auto-commit before a
 * revocation, the auto-commit on close, and commitSync. What a commit
 * carries (member epoch or generation) and how errors are met come from the
 * group's CommitProtocol. Commits wait for a known coordinator. Every
 * attempt's outcome is reported as a `member.commit` observation.
 *
 * Auto-commits: an auto-commit (on the interval, before a revocation, on
 * close) is pending from when it is made until it is over, its retries
 * included. With KIP-848's `AutoCommitState` no interval auto-commit is
 * made while one is pending, so nothing auto-commits on the interval
 * between an attempt and its retry; the classic client's interval
 * auto-commit only looks at its timer. No commit waits for another: all go
 * to the coordinator on one connection, which keeps them in order, as
 * Kafka's do.
 */
export class CommitRequestManager {
  readonly #identity: MemberIdentity;
  readonly #protocol: CommitProtocol;
  readonly #channel: RequestChannel;
  readonly #coordinator: CoordinatorManager;
  readonly #assigned: AssignedPartitions;
  readonly #source: RecordSource;
  readonly #observer: MemberObserver;
  readonly #backoff: ExponentialBackoff;
  readonly #autoCommitTimer: AutoCommitTimer | null;
  /** Commits waiting to be sent, first attempts and retries alike. */
  #unsent: PendingCommit[] = [];
  /** Auto-commits not yet over (AutoCommitState's in-flight flag, counted). */
  #pendingAutoCommits = 0;

  constructor(
    settings: CommitSettings,
    identity: MemberIdentity,
    protocol: CommitProtocol,
    channel: RequestChannel,
    coordinator: CoordinatorManager,
    assigned: AssignedPartitions,
    source: RecordSource,
    observer: MemberObserver,
    backoff: ExponentialBackoff,
    now: Micros,
  ) {
    this.#identity = identity;
    this.#protocol = protocol;
    this.#channel = channel;
    this.#coordinator = coordinator;
    this.#assigned = assigned;
    this.#source = source;
    this.#observer = observer;
    this.#backoff = backoff;
    this.#autoCommitTimer = settings.autoCommit ? new AutoCommitTimer(settings.autoCommitIntervalMs, now) : null;
  }

  get autoCommitEnabled(): boolean {
    return this.#autoCommitTimer !== null;
  }

  /**
   * The positions of the assigned partitions that have one: what "commit all
   * consumed" commits. Partitions already lost or given up are left out (the
   * member no longer speaks for them). Sorted by partition, each once (the
   * assigned entries are), so each topic's partitions are one run.
   */
  allConsumed(): ConsumedPosition[] {
    const offsets: ConsumedPosition[] = [];
    for (const { partition, status } of this.#assigned.entries()) {
      if (status === "released") continue;
      const offset = this.#source.position(partition);
      if (offset !== null) offsets.push({ partition, offset });
    }
    return offsets;
  }

  /** Inside poll(): the auto-commit of all consumed positions, if the interval is over (and, with AutoCommitState, no auto-commit is pending). */
  maybeAutoCommitOnPoll(ctx: Context): void {
    const timer = this.#autoCommitTimer;
    if (timer === null || !timer.isDue(ctx.now())) return;
    if (this.#protocol.intervalAutoCommitWaitsForPending && this.#pendingAutoCommits > 0) return;
    // The interval restarts even when there is nothing to commit.
    timer.reset(ctx.now());
    this.autoCommitAsync("auto", ctx, () => {});
  }

  /**
   * How long until the next interval auto-commit is due (a pass of poll()'s
   * loop waits no longer: `CommitRequestManager.maximumTimeToWait`, the
   * classic `ConsumerCoordinator.timeToNextPoll`); Infinity without
   * auto-commit. One due now is made in this instant: the next is an
   * interval away.
   */
  timeToNextAutoCommit(now: Micros): Micros {
    return this.#autoCommitTimer?.timeToNext(now) ?? Number.POSITIVE_INFINITY;
  }

  /** Restarts the auto-commit interval (a reconciliation completed). */
  resetAutoCommitTimer(now: Micros): void {
    this.#autoCommitTimer?.reset(now);
  }

  /**
   * With auto-commit on, commits all consumed positions before a revocation,
   * retrying until `deadline`; `onDone` runs in any case (a failure is only
   * logged). The KIP-848 consumer's (`maybeAutoCommitSyncBeforeRevocation`).
   */
  autoCommitBeforeRevocation(kind: CommitKind, deadline: Micros, ctx: Context, onDone: CommitDone): void {
    const offsets = this.allConsumed();
    if (this.#autoCommitTimer === null || offsets.length === 0) {
      onDone(ctx, true, false);
      return;
    }
    const state = new RequestState(this.#backoff);
    this.#enqueue({ kind, retry: "before-revocation", deadline, auto: true, offsets, onDone, state }, ctx);
  }

  /**
   * An asynchronous auto-commit of all consumed positions
   * (`ConsumerCoordinator.autoCommitOffsetsAsync`): the interval's, and the
   * classic consumer's before a rebalance (from `onJoinPrepare`). One
   * attempt, never retried here; the caller sends a fresh one if it wants
   * (onJoinPrepare does, from inside poll(), with the positions consumed by
   * then). A retriable failure brings the next interval auto-commit forward
   * to the backoff. With nothing consumed it is over at once, committed.
   */
  autoCommitAsync(kind: CommitKind, ctx: Context, onDone: CommitDone): void {
    const offsets = this.allConsumed();
    if (offsets.length === 0) {
      onDone(ctx, true, false);
      return;
    }
    const state = new RequestState(this.#backoff);
    this.#enqueue({ kind, retry: "none", deadline: Number.POSITIVE_INFINITY, auto: true, offsets, onDone, state }, ctx);
  }

  /** close() with auto-commit on: commits all consumed positions, retried on retriable errors for up to `timeoutMs`. */
  autoCommitOnClose(timeoutMs: number, ctx: Context, onDone: CommitDone): void {
    this.#commitSync("close", true, timeoutMs, ctx, onDone);
  }

  /** commitSync() of all consumed positions, retried on retriable errors for up to `timeoutMs`. */
  commitSync(timeoutMs: number, ctx: Context, onDone: CommitDone): void {
    this.#commitSync("sync", false, timeoutMs, ctx, onDone);
  }

  /** Sends the commits that can go now; gives up those whose deadline passed before they could. */
  poll(ctx: Context): void {
    // Called after every event of the member: nothing waiting is the common case.
    if (this.#unsent.length === 0) return;
    const now = ctx.now();
    for (const commit of [...this.#unsent]) {
      if (now < commit.deadline) continue;
      this.#unsent = this.#unsent.filter((c) => c !== commit);
      this.#observer.commit(ctx, commit.kind, epochOf(this.#protocol.commitIdentity()), committedTopics(commit), NOT_SENT_IN_TIME);
      this.#finish(commit, false, true, ctx);
    }
    const coordinator = this.#coordinator.coordinator;
    if (coordinator === null) return;
    for (const commit of [...this.#unsent]) {
      if (!commit.state.canSendRequest(now)) continue;
      this.#unsent = this.#unsent.filter((c) => c !== commit);
      this.#send(commit, coordinator, ctx);
    }
  }

  nextWakeAt(now: Micros): Micros | null {
    let next: Micros | null = null;
    const known = this.#coordinator.coordinator !== null;
    for (const commit of this.#unsent) {
      if (Number.isFinite(commit.deadline)) next = Math.min(next ?? commit.deadline, commit.deadline);
      if (known) next = Math.min(next ?? Number.POSITIVE_INFINITY, now + commit.state.remainingBackoff(now));
    }
    return next;
  }

  #commitSync(kind: CommitKind, auto: boolean, timeoutMs: number, ctx: Context, onDone: CommitDone): void {
    const offsets = this.allConsumed();
    if (offsets.length === 0) {
      onDone(ctx, true, false);
      return;
    }
    const state = new RequestState(this.#backoff);
    this.#enqueue({ kind, retry: "sync", deadline: ctx.now() + ms(timeoutMs), auto, offsets, onDone, state }, ctx);
  }

  #enqueue(commit: PendingCommit, ctx: Context): void {
    this.#unsent.push(commit);
    if (commit.auto) this.#pendingAutoCommits++;
    this.poll(ctx);
  }

  #send(commit: PendingCommit, coordinator: string, ctx: Context): void {
    const sent = this.#protocol.commitIdentity();
    if (isRefusal(sent)) {
      // Nothing goes out (the classic client outside a stable generation): a non-retriable local failure.
      this.#observer.commit(ctx, commit.kind, sent.memberEpoch, committedTopics(commit), sent.refusedWith);
      ctx.log.warn("commit refused locally: the member may not commit now", { kind: commit.kind, error: sent.refusedWith });
      this.#finish(commit, false, false, ctx);
      return;
    }
    const epoch = sent.generationIdOrMemberEpoch;
    // The request lists what the observation of its answer lists.
    const columns = committedTopics(commit);
    const topics = columns.map(({ topic, partitions, offsets }) => ({
      name: topic,
      partitions: partitions.map((partitionIndex, i) => ({
        partitionIndex,
        committedOffset: offsets[i] as number,
        committedLeaderEpoch: NO_PARTITION_LEADER_EPOCH,
        committedMetadata: "",
      })),
    }));
    commit.state.onSendAttempt();
    this.#channel.send(
      ctx,
      coordinator,
      {
        type: "OffsetCommitRequest",
        correlationId: this.#channel.nextCorrelationId(),
        apiVersion: 9,
        clientId: this.#channel.clientId,
        groupId: this.#identity.groupId,
        generationIdOrMemberEpoch: epoch,
        memberId: sent.memberId,
        groupInstanceId: this.#identity.groupInstanceId,
        topics,
      },
      "OffsetCommitResponse",
      (response, ctx) => this.#onResponse(commit, sent, columns, response, ctx),
      (ctx, failure) => {
        this.#observer.commit(ctx, commit.kind, epoch, columns, failure);
        this.#onFailure(commit, failure, sent, ctx);
      },
    );
  }

  #onResponse(commit: PendingCommit, sent: CommitIdentity, columns: CommittedTopics, response: OffsetCommitResponse, ctx: Context): void {
    let error: number = ErrorCode.NONE;
    for (const topic of response.topics) {
      for (const partition of topic.partitions) {
        if (partition.errorCode !== ErrorCode.NONE && error === ErrorCode.NONE) error = partition.errorCode;
      }
    }
    this.#observer.commit(ctx, commit.kind, sent.generationIdOrMemberEpoch, columns, errorName(error));
    if (error === ErrorCode.NONE) {
      commit.state.onSuccessfulAttempt(ctx.now());
      this.#finish(commit, true, false, ctx);
    } else {
      this.#onFailure(commit, error, sent, ctx);
    }
  }

  /** A failed attempt: an error code from the coordinator, or a transport failure (no response in time, connection closed). */
  #onFailure(commit: PendingCommit, error: number | TransportFailure, sent: CommitIdentity, ctx: Context): void {
    const now = ctx.now();
    const transport = typeof error === "string";
    const name = transport ? error : errorName(error);
    if (transport || COORDINATOR_ERRORS.has(error)) this.#coordinator.markUnknown(`OffsetCommit ${name}`, ctx);
    const retriable = transport || RETRIABLE.has(error);
    let retry = false;
    switch (commit.retry) {
      case "none":
        if (retriable && commit.auto) this.#autoCommitTimer?.resetWithBackoff(now, this.#backoff.backoff(0));
        break;
      case "sync":
        retry = retriable && now < commit.deadline;
        break;
      case "before-revocation": {
        retry = this.#protocol.retriesBeforeRevocation(transport ? null : error) && now < commit.deadline;
        if (retry) commit.offsets = this.allConsumed();
        if (retry && commit.offsets.length === 0) {
          this.#finish(commit, true, false, ctx);
          return;
        }
        break;
      }
    }
    if (retry) {
      // Still pending: with AutoCommitState, no interval auto-commit before the retry.
      commit.state.onFailedAttempt(now);
      this.#unsent.push(commit);
      return;
    }
    const raised = transport ? "" : this.#protocol.onCommitFailed(error, sent, ctx);
    ctx.log.warn(raised !== "" && commit.retry === "sync" ? `commit failed: ${raised}` : "commit failed", {
      kind: commit.kind,
      error: name,
    });
    this.#finish(commit, false, retriable, ctx);
  }

  #finish(commit: PendingCommit, committed: boolean, retriable: boolean, ctx: Context): void {
    if (commit.auto) this.#pendingAutoCommits--;
    commit.onDone(ctx, committed, retriable);
  }
}

function epochOf(identity: CommitIdentity | CommitRefusal): number {
  return isRefusal(identity) ? identity.memberEpoch : identity.generationIdOrMemberEpoch;
}

/** The commit's offsets as a request lists them: a column pair per topic (the offsets are sorted, so each topic is one run). */
function committedTopics(commit: PendingCommit): CommittedTopics {
  const topics: { topic: string; partitions: number[]; offsets: number[] }[] = [];
  let last: { topic: string; partitions: number[]; offsets: number[] } | undefined;
  for (const { partition, offset } of commit.offsets) {
    if (last === undefined || last.topic !== partition.topic) {
      last = { topic: partition.topic, partitions: [], offsets: [] };
      topics.push(last);
    }
    last.partitions.push(partition.partition);
    last.offsets.push(offset);
  }
  return topics;
}
