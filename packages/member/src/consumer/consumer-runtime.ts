import type { OffsetResetStrategy, RecordSource } from "@kcsim/fetch";
import {
  type ActorId,
  type Context,
  type ControlCommand,
  ExponentialBackoff,
  type JsonValue,
  type Message,
  partitionsByTopic,
} from "@kcsim/protocol";
import type { BatchProcessor } from "../processing/batch-processor.js";
import { batchProcessorFor } from "../processing/batch-processor-for.js";
import { controlApplication } from "./application-control.js";
import { type ApplicationHooks, ApplicationThread } from "./application-thread.js";
import { AssignedPartitions } from "./assigned-partitions.js";
import { clientIdOf } from "./client-id.js";
import { CommitRequestManager } from "./commit-request-manager.js";
import type { Continuation } from "./completion.js";
import type { ConsumerMemberConfig } from "./consumer-member-config.js";
import { CoordinatorManager } from "./coordinator-manager.js";
import type { CorrelationIds } from "./correlation-ids.js";
import { deliverToConsumer, fireForConsumer } from "./deliver-to-consumer.js";
import { earlier } from "./earlier-wake.js";
import { HeartbeatFields } from "./heartbeat-fields.js";
import { HeartbeatManager } from "./heartbeat-manager.js";
import { MemberEpochCommitProtocol } from "./member-epoch-commit-protocol.js";
import { generateMemberId } from "./member-id.js";
import type { MemberIdentity } from "./member-identity.js";
import { MemberObserver } from "./member-observer.js";
import { type LeaveReason, MembershipManager } from "./membership-manager.js";
import { PositionInitializer } from "./position-initializer.js";
import { RequestChannel } from "./request-channel.js";
import { TopicMetadata } from "./topic-metadata.js";

/** The background thread's own timer: the next moment a heartbeat, retry or poll-timer check is due. */
const BACKGROUND_TIMER = "bg";

/**
 * One running consumer: the background thread (coordinator discovery,
 * heartbeats, membership and reconciliation, commits, offset fetches) and
 * the application thread, wired together. After every event the background
 * thread runs until nothing changes (like Kafka's network thread loop) and
 * arms one timer for the next moment it has something to do.
 */
export class ConsumerRuntime {
  readonly memberId: string;
  readonly #config: ConsumerMemberConfig;
  readonly #source: RecordSource;
  readonly #channel: RequestChannel;
  readonly #coordinator: CoordinatorManager;
  readonly #assigned: AssignedPartitions;
  readonly #commits: CommitRequestManager;
  readonly #positions: PositionInitializer;
  readonly #membership: MembershipManager;
  readonly #heartbeat: HeartbeatManager;
  readonly #processor: BatchProcessor;
  readonly #app: ApplicationThread;

  constructor(actorId: ActorId, config: ConsumerMemberConfig, source: RecordSource, correlationIds: CorrelationIds, ctx: Context) {
    const consumer = config.consumer;
    const groupId = consumer["group.id"];
    const groupInstanceId = consumer["group.instance.id"];
    const now = ctx.now();
    this.memberId = generateMemberId(() => ctx.random());
    this.#config = config;
    this.#source = source;

    const backoff = new ExponentialBackoff(consumer["retry.backoff.ms"], consumer["retry.backoff.max.ms"]);
    this.#channel = new RequestChannel(clientIdOf(actorId, consumer), consumer["request.timeout.ms"], correlationIds);
    const memberEpoch = () => this.#membership.memberEpoch();
    const identity: MemberIdentity = { groupId, memberId: this.memberId, groupInstanceId, memberEpoch };
    const memberId = this.memberId;
    const observer = new MemberObserver({ groupId, protocol: "consumer", memberId: () => memberId, memberEpoch });
    this.#coordinator = new CoordinatorManager(groupId, config.bootstrap, this.#channel, observer, backoff);
    this.#assigned = new AssignedPartitions(source, observer);
    this.#commits = new CommitRequestManager(
      {
        autoCommit: config.app.commit === "auto",
        autoCommitIntervalMs: consumer["auto.commit.interval.ms"],
      },
      identity,
      new MemberEpochCommitProtocol(identity),
      this.#channel,
      this.#coordinator,
      this.#assigned,
      source,
      observer,
      backoff,
      now,
    );
    this.#positions = new PositionInitializer(
      identity,
      this.#channel,
      this.#coordinator,
      this.#assigned,
      source,
      consumer["auto.offset.reset"] as OffsetResetStrategy,
      backoff,
    );
    this.#processor = batchProcessorFor(actorId, config, {
      source,
      assigned: this.#assigned,
      observer,
      correlationIds,
      groupMetadata: () => ({ groupId, generationId: this.#membership.memberEpoch(), memberId, groupInstanceId }),
    });
    this.#app = new ApplicationThread(
      config.app,
      consumer["max.poll.records"],
      source,
      observer,
      this.#applicationHooks(),
      this.#processor,
    );
    this.#membership = new MembershipManager(
      {
        groupId,
        memberId: this.memberId,
        groupInstanceId,
        rebalanceTimeoutMs: consumer["max.poll.interval.ms"],
        bugs: config.plantedBugs,
        skipReleasedPartitions: consumer["kcsim.reconciliation.skip.released.partitions"],
      },
      {
        metadata: new TopicMetadata(config.topics),
        assigned: this.#assigned,
        listener: this.#app,
        commits: this.#commits,
        positions: this.#positions,
        observer,
      },
    );
    this.#heartbeat = new HeartbeatManager(
      this.#channel,
      this.#coordinator,
      this.#membership,
      new HeartbeatFields(consumer["max.poll.interval.ms"], consumer["group.remote.assignor"]),
      observer,
      consumer["max.poll.interval.ms"],
      backoff,
      now,
      config.plantedBugs,
    );

    if (config.subscription.length > 0) this.#membership.subscribe(config.subscription);
    ctx.log.info("consumer started", {
      memberId: this.memberId,
      groupId,
      instanceId: groupInstanceId,
      subscription: [...config.subscription],
    });
    this.#processor.start(ctx);
    this.#app.start(ctx);
    this.#runBackground(ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    // The processor's producer first: its answers look like the consumer's (FindCoordinator, Metadata) but carry its correlation ids.
    const forProcessor = this.#processor.receive(from, message, ctx);
    if (forProcessor) this.#app.wakeProcessing(ctx);
    if (!forProcessor || message.type === "SimDisconnect") {
      if (deliverToConsumer(this.#channel, this.#source, from, message, ctx) && this.#source.hasRecords()) this.#app.wake(ctx);
    }
    this.#runBackground(ctx);
  }

  fire(timer: string, ctx: Context): void {
    if (timer === BACKGROUND_TIMER) {
      // Nothing of its own: the background run below is the point.
    } else if (this.#app.handlesTimer(timer)) {
      this.#app.fire(ctx);
    } else if (this.#processor.fire(timer, ctx)) {
      this.#app.wakeProcessing(ctx);
    } else {
      fireForConsumer(this.#channel, this.#source, timer, ctx);
    }
    this.#runBackground(ctx);
  }

  control(command: ControlCommand, ctx: Context): void {
    if (controlApplication(this.#app, command, ctx)) this.#runBackground(ctx);
  }

  snapshot(): JsonValue {
    const membership = this.#membership.describe();
    return {
      memberId: this.memberId,
      groupId: this.#config.consumer["group.id"],
      instanceId: this.#config.consumer["group.instance.id"],
      state: membership.state,
      memberEpoch: membership.memberEpoch,
      owned: partitionsByTopic(this.#assigned.owned()),
      assigned: partitionsByTopic(this.#assigned.all()),
      currentAssignment: membership.current,
      targetAssignment: membership.target,
      reconciling: this.#membership.reconciliationInProgress,
      fatalError: this.#membership.fatalError,
      subscription: [...this.#membership.subscription],
      coordinator: this.#coordinator.coordinator,
      heartbeatIntervalMs: this.#heartbeat.heartbeatIntervalMs,
      app: this.#app.snapshot(),
      processing: this.#processor.snapshot(),
    };
  }

  #applicationHooks(): ApplicationHooks {
    return {
      // Each pass of poll()'s loop sends a PollEvent: the auto-commit timer, onConsumerPoll, then the poll timer
      // (ApplicationEventProcessor.process(PollEvent)).
      onPollEntered: (ctx) => {
        this.#commits.maybeAutoCommitOnPoll(ctx);
        this.#membership.maybeReconcile(true, ctx);
        this.#membership.onConsumerPoll(ctx);
        this.#heartbeat.resetPollTimer(ctx);
      },
      onPollIteration: (ctx, passBegins) => {
        this.#membership.maybeReconcile(true, ctx);
        this.#membership.onConsumerPoll(ctx);
        if (passBegins) this.#heartbeat.resetPollTimer(ctx);
      },
      passWaitUs: (now) => Math.min(this.#heartbeat.maximumTimeToWait(now), this.#commits.timeToNextAutoCommit(now)),
      isFatal: () => this.#membership.state === "FATAL",
      isSubscribed: () => this.#membership.hasSubscription(),
      subscribe: (topics) => this.#membership.subscribe(topics),
      leave: (reason: LeaveReason, ctx: Context, onDone: Continuation) => this.#membership.leaveGroup(reason, ctx, onDone),
      commitSync: (ctx, onDone) => this.#commits.commitSync(this.#config.consumer["default.api.timeout.ms"], ctx, (ctx) => onDone(ctx)),
    };
  }

  /** The background thread: run every manager until the member stops changing, then sleep until the next due time. */
  #runBackground(ctx: Context): void {
    if (this.#app.closed) {
      ctx.cancelTimer(BACKGROUND_TIMER);
      return;
    }
    for (let round = 0; round < 8; round++) {
      const before = this.#membership.version;
      this.#coordinator.poll(ctx);
      this.#membership.maybeReconcile(false, ctx);
      this.#heartbeat.poll(ctx);
      this.#commits.poll(ctx);
      this.#positions.poll(ctx);
      if (this.#membership.version === before) break;
    }
    // A reconciliation that needs poll() (auto-commit) wakes a poll() that waits for records: a new pass of its loop,
    // whose PollEvent is where Kafka starts it (onConsumerPoll).
    if (this.#app.waitingInPoll && this.#membership.needsPollToReconcile()) this.#app.wake(ctx, true);
    this.#app.refreshPollWait(ctx);

    const now = ctx.now();
    let next = earlier(null, this.#heartbeat.nextWakeAt(now));
    next = earlier(next, this.#coordinator.nextWakeAt(now));
    next = earlier(next, this.#commits.nextWakeAt(now));
    next = earlier(next, this.#positions.nextWakeAt(now));
    if (next === null || !Number.isFinite(next)) ctx.cancelTimer(BACKGROUND_TIMER);
    // At least 1us ahead: something due now was done above, so re-checking at the same instant could spin.
    else ctx.setTimer(BACKGROUND_TIMER, Math.max(1, next - now));
  }
}
