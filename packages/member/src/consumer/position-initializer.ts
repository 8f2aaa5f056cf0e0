import type { OffsetResetStrategy, RecordSource } from "@kcsim/fetch";
import {
  type ActorId,
  type Context,
  ErrorCode,
  type ExponentialBackoff,
  errorName,
  type Micros,
  type OffsetFetchResponse,
  type TopicPartition,
  tpKey,
} from "@kcsim/protocol";
import type { AssignedPartitions } from "./assigned-partitions.js";
import type { CoordinatorManager } from "./coordinator-manager.js";
import { epochForOffsetRequests, type MemberIdentity } from "./member-identity.js";
import type { RequestChannel } from "./request-channel.js";
import { RequestState } from "./request-state.js";

/** Errors after which the OffsetFetch is simply tried again (after the backoff). */
const RETRIABLE = new Set<number>([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.UNSTABLE_OFFSET_COMMIT,
  // The member's epoch or id moved on: retried with the current ones.
  ErrorCode.STALE_MEMBER_EPOCH,
  ErrorCode.UNKNOWN_MEMBER_ID,
]);

const COORDINATOR_ERRORS = new Set<number>([ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR, ErrorCode.REQUEST_TIMED_OUT]);

/**
 * Gives newly owned partitions a position: their committed offset, fetched
 * with OffsetFetch v9 (member id and epoch, require_stable), or, when none
 * is committed, the RecordSource's reset by auto.offset.reset. One
 * OffsetFetch in flight at a time, retried with backoff.
 */
export class PositionInitializer {
  readonly #identity: MemberIdentity;
  readonly #channel: RequestChannel;
  readonly #coordinator: CoordinatorManager;
  readonly #assigned: AssignedPartitions;
  readonly #source: RecordSource;
  readonly #resetStrategy: OffsetResetStrategy;
  readonly #state: RequestState;
  readonly #needed = new Map<string, TopicPartition>();

  constructor(
    identity: MemberIdentity,
    channel: RequestChannel,
    coordinator: CoordinatorManager,
    assigned: AssignedPartitions,
    source: RecordSource,
    resetStrategy: OffsetResetStrategy,
    backoff: ExponentialBackoff,
  ) {
    this.#identity = identity;
    this.#channel = channel;
    this.#coordinator = coordinator;
    this.#assigned = assigned;
    this.#source = source;
    this.#resetStrategy = resetStrategy;
    this.#state = new RequestState(backoff);
  }

  /** These partitions need a position (they just became owned). */
  request(partitions: readonly TopicPartition[], ctx: Context): void {
    for (const partition of partitions) this.#needed.set(tpKey(partition.topic, partition.partition), partition);
    this.poll(ctx);
  }

  poll(ctx: Context): void {
    this.#dropSettled();
    const coordinator = this.#coordinator.coordinator;
    // Asked after every event: the request, and the closures it makes, live in #fetchOffsets so that asking costs nothing.
    if (this.#needed.size > 0 && coordinator !== null && this.#state.canSendRequest(ctx.now())) this.#fetchOffsets(coordinator, ctx);
  }

  #fetchOffsets(coordinator: ActorId, ctx: Context): void {
    const wanted = [...this.#needed.values()];
    const byTopic = new Map<string, number[]>();
    for (const { topic, partition } of wanted) {
      let list = byTopic.get(topic);
      if (list === undefined) {
        list = [];
        byTopic.set(topic, list);
      }
      list.push(partition);
    }
    const epoch = epochForOffsetRequests(this.#identity);
    this.#state.onSendAttempt();
    this.#channel.send(
      ctx,
      coordinator,
      {
        type: "OffsetFetchRequest",
        correlationId: this.#channel.nextCorrelationId(),
        apiVersion: 9,
        clientId: this.#channel.clientId,
        groups: [
          {
            groupId: this.#identity.groupId,
            memberId: epoch > 0 ? this.#identity.memberId : null,
            memberEpoch: epoch,
            topics: [...byTopic.entries()].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
          },
        ],
        requireStable: true,
      },
      "OffsetFetchResponse",
      (response, ctx) => this.#onResponse(response, ctx),
      (ctx) => {
        this.#coordinator.markUnknown("OffsetFetch TIMEOUT", ctx);
        this.#state.onFailedAttempt(ctx.now());
      },
    );
  }

  nextWakeAt(now: Micros): Micros | null {
    if (this.#needed.size === 0 || this.#state.inFlight || this.#coordinator.coordinator === null) return null;
    return now + this.#state.remainingBackoff(now);
  }

  #onResponse(response: OffsetFetchResponse, ctx: Context): void {
    const group = response.groups.find((g) => g.groupId === this.#identity.groupId);
    const groupError = group === undefined ? ErrorCode.UNKNOWN_SERVER_ERROR : group.errorCode;
    if (groupError !== ErrorCode.NONE) {
      this.#onError(groupError, ctx);
      return;
    }
    let retryError: number | null = null;
    for (const topic of group?.topics ?? []) {
      for (const p of topic.partitions) {
        const key = tpKey(topic.name, p.partitionIndex);
        const partition = this.#needed.get(key);
        if (partition === undefined) continue;
        if (p.errorCode !== ErrorCode.NONE) {
          if (RETRIABLE.has(p.errorCode)) retryError ??= p.errorCode;
          else this.#giveUp(partition, errorName(p.errorCode), ctx);
          continue;
        }
        this.#needed.delete(key);
        if (!this.#stillNeedsPosition(partition)) continue;
        if (p.committedOffset >= 0) this.#source.seek(partition, p.committedOffset, ctx);
        else this.#source.resetPosition(partition, this.#resetStrategy, ctx);
      }
    }
    for (const problem of this.#source.takePositionProblems()) {
      ctx.log.warn("no position for partition (NoOffsetForPartitionException)", {
        topic: problem.partition.topic,
        partition: problem.partition.partition,
        problem: problem.problem,
      });
    }
    if (retryError !== null) this.#onError(retryError, ctx);
    else this.#state.onSuccessfulAttempt(ctx.now());
  }

  #onError(error: number, ctx: Context): void {
    if (COORDINATOR_ERRORS.has(error)) this.#coordinator.markUnknown(`OffsetFetch ${errorName(error)}`, ctx);
    this.#state.onFailedAttempt(ctx.now());
    if (RETRIABLE.has(error)) return;
    for (const partition of [...this.#needed.values()]) this.#giveUp(partition, errorName(error), ctx);
  }

  #giveUp(partition: TopicPartition, error: string, ctx: Context): void {
    this.#needed.delete(tpKey(partition.topic, partition.partition));
    ctx.log.error("could not fetch the committed offset; the partition stays without a position", {
      topic: partition.topic,
      partition: partition.partition,
      error,
    });
  }

  #stillNeedsPosition(partition: TopicPartition): boolean {
    return this.#assigned.statusOf(partition) === "owned" && this.#source.position(partition) === null;
  }

  /** Partitions revoked, lost or positioned meanwhile need nothing any more. */
  #dropSettled(): void {
    if (this.#needed.size === 0) return;
    for (const [key, partition] of this.#needed) if (!this.#stillNeedsPosition(partition)) this.#needed.delete(key);
  }
}
