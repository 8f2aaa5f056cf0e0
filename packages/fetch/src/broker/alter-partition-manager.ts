import {
  type ActorId,
  type AlterPartitionRequest,
  type AlterPartitionResponse,
  type Context,
  ErrorCode,
  type Micros,
  ms,
  tpKey,
} from "@kcsim/protocol";
import type { AlterPartitionOutcome, IsrProposal, Partition } from "./partition.js";

/** The AlterPartition channel to the controller (Kafka: its own NodeToControllerChannelManager). */
export const ALTER_PARTITION_CONNECTION = "alter-partition";
/** Kafka's AlterPartitionManager waits this long before sending again after a failure. */
const RETRY_DELAY: Micros = ms(50);

type AlterPartitionRequestPartition = AlterPartitionRequest["topics"][number]["partitions"][number];

/** The timer that sends queued proposals again, or gives up on a lost request. */
export const ALTER_PARTITION_TIMER = "alter-partition";

interface Item {
  readonly partition: Partition;
  readonly proposal: IsrProposal;
}

/** What the manager needs from its broker. */
export interface AlterPartitionManagerHost {
  readonly brokerId: number;
  readonly controller: ActorId;
  /** The broker epoch from registration, or -1 before it. */
  brokerEpoch(): number;
  nextCorrelationId(): number;
  /** controller.socket.timeout.ms, in micros. */
  readonly requestTimeout: Micros;
  /** Applies an answer to a partition; returns whether the proposal must be sent again. */
  onOutcome(partition: Partition, proposal: IsrProposal, outcome: AlterPartitionOutcome): boolean;
}

/**
 * Sends leaders' ISR proposals to the controller (Kafka's
 * `DefaultAlterPartitionManager`): proposals queue per partition and go out
 * together in one AlterPartition request, one request at a time. A request
 * that fails as a whole (an error, no answer within
 * controller.socket.timeout.ms, or a reset connection because the
 * controller's process is not running) is retried after a short delay, as
 * are partitions answered with an unexpected error.
 */
export class AlterPartitionManager {
  readonly #host: AlterPartitionManagerHost;
  readonly #queued = new Map<string, Item>();
  #inFlight: { readonly correlationId: number; readonly items: readonly Item[]; readonly sentAt: Micros } | null = null;
  #retryAt: Micros = 0;

  constructor(host: AlterPartitionManagerHost) {
    this.#host = host;
  }

  get pending(): number {
    return this.#queued.size + (this.#inFlight?.items.length ?? 0);
  }

  submit(partition: Partition, proposal: IsrProposal, ctx: Context): void {
    this.#queued.set(tpKey(partition.topic, partition.index), { partition, proposal });
    this.maybeSend(ctx);
  }

  maybeSend(ctx: Context): void {
    const now = ctx.now();
    if (this.#inFlight !== null || this.#queued.size === 0) return;
    if (now < this.#retryAt || this.#host.brokerEpoch() < 0) {
      // Waiting out a retry delay, or not registered yet: look again later.
      ctx.setTimer(ALTER_PARTITION_TIMER, Math.max(this.#retryAt - now, RETRY_DELAY));
      return;
    }
    const items = [...this.#queued.values()];
    this.#queued.clear();
    const byTopic = new Map<string, AlterPartitionRequestPartition[]>();
    for (const { partition, proposal } of items) {
      const list = byTopic.get(partition.topicId) ?? [];
      list.push({
        partitionIndex: partition.index,
        leaderEpoch: proposal.leaderEpoch,
        newIsr: [...proposal.newIsr],
        leaderRecoveryState: 0,
        partitionEpoch: proposal.partitionEpoch,
      });
      byTopic.set(partition.topicId, list);
    }
    const correlationId = this.#host.nextCorrelationId();
    this.#inFlight = { correlationId, items, sentAt: now };
    ctx.send(
      this.#host.controller,
      {
        type: "AlterPartitionRequest",
        correlationId,
        apiVersion: 2,
        clientId: `broker-${this.#host.brokerId}-alter-partition`,
        brokerId: this.#host.brokerId,
        brokerEpoch: this.#host.brokerEpoch(),
        topics: [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions })),
      },
      ALTER_PARTITION_CONNECTION,
    );
    ctx.setTimer(ALTER_PARTITION_TIMER, this.#host.requestTimeout);
  }

  onResponse(response: AlterPartitionResponse, ctx: Context): void {
    const inFlight = this.#inFlight;
    if (inFlight === null || inFlight.correlationId !== response.correlationId) return;
    this.#inFlight = null;
    ctx.cancelTimer(ALTER_PARTITION_TIMER);
    if (response.errorCode !== ErrorCode.NONE) {
      this.#requeue(inFlight.items, ctx);
      return;
    }
    const retry: Item[] = [];
    for (const item of inFlight.items) {
      const answer = response.topics
        .find((t) => t.topicId === item.partition.topicId)
        ?.partitions.find((p) => p.partitionIndex === item.partition.index);
      const outcome: AlterPartitionOutcome =
        answer === undefined
          ? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR }
          : answer.errorCode === ErrorCode.NONE
            ? {
                errorCode: 0,
                leaderId: answer.leaderId,
                leaderEpoch: answer.leaderEpoch,
                isr: answer.isr,
                partitionEpoch: answer.partitionEpoch,
              }
            : { errorCode: answer.errorCode };
      if (this.#host.onOutcome(item.partition, item.proposal, outcome)) retry.push(item);
    }
    if (retry.length > 0) this.#requeue(retry, ctx);
    else this.maybeSend(ctx);
  }

  /** The timer: a lost request is given up and its items queued again; or a retry delay ended. */
  onTimer(ctx: Context): void {
    const inFlight = this.#inFlight;
    if (inFlight !== null && ctx.now() >= inFlight.sentAt + this.#host.requestTimeout) {
      ctx.closeConnection(this.#host.controller, ALTER_PARTITION_CONNECTION);
      this.#inFlight = null;
      this.#requeue(inFlight.items, ctx);
      return;
    }
    this.maybeSend(ctx);
  }

  /** The controller reset the connection: the request in flight fails at once and is retried after the delay; false if none was. */
  disconnected(ctx: Context): boolean {
    const inFlight = this.#inFlight;
    if (inFlight === null) return false;
    this.#inFlight = null;
    ctx.cancelTimer(ALTER_PARTITION_TIMER);
    this.#requeue(inFlight.items, ctx);
    return true;
  }

  #requeue(items: readonly Item[], ctx: Context): void {
    for (const item of items) {
      const key = tpKey(item.partition.topic, item.partition.index);
      // A newer proposal for the partition replaces the failed one.
      if (!this.#queued.has(key)) this.#queued.set(key, item);
    }
    this.#retryAt = ctx.now() + RETRY_DELAY;
    this.maybeSend(ctx);
  }
}
