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
import { controlApplication } from "../consumer/application-control.js";
import { type ApplicationHooks, ApplicationThread } from "../consumer/application-thread.js";
import { AssignedPartitions } from "../consumer/assigned-partitions.js";
import { clientIdOf } from "../consumer/client-id.js";
import { CommitRequestManager } from "../consumer/commit-request-manager.js";
import { CoordinatorManager } from "../consumer/coordinator-manager.js";
import type { CorrelationIds } from "../consumer/correlation-ids.js";
import { deliverToConsumer, fireForConsumer } from "../consumer/deliver-to-consumer.js";
import { earlier } from "../consumer/earlier-wake.js";
import type { MemberIdentity } from "../consumer/member-identity.js";
import { MemberObserver } from "../consumer/member-observer.js";
import { PositionInitializer } from "../consumer/position-initializer.js";
import { RequestChannel } from "../consumer/request-channel.js";
import type { BatchProcessor } from "../processing/batch-processor.js";
import { batchProcessorFor } from "../processing/batch-processor-for.js";
import { AssignorMemory } from "./assignor-memory.js";
import { ClassicCommitProtocol } from "./classic-commit-protocol.js";
import { ClassicGroupLeave } from "./classic-group-leave.js";
import { ClassicHeartbeatThread } from "./classic-heartbeat-thread.js";
import type { ClassicMemberConfig } from "./classic-member-config.js";
import { hasNotJoinedGroup } from "./classic-member-state.js";
import { ClassicMembership } from "./classic-membership.js";
import { HeartbeatTimers } from "./heartbeat-timers.js";
import { JoinGroupLoop } from "./join-group-loop.js";
import { maybeLeaveGroup } from "./maybe-leave-group.js";

/** The background's own timer: the next moment a heartbeat, retry or timer check is due. */
const BACKGROUND_TIMER = "bg";

/**
 * One running classic consumer (group.protocol=classic): the application
 * thread (poll loop, callbacks, close) with the join loop running inside
 * its poll(), the heartbeat thread, coordinator discovery, commits and
 * offset fetches in the background, wired together. After every event the
 * background runs until nothing changes and arms one timer for the next
 * moment it has something to do.
 */
export class ClassicRuntime {
  readonly #config: ClassicMemberConfig;
  readonly #source: RecordSource;
  readonly #channel: RequestChannel;
  readonly #coordinator: CoordinatorManager;
  readonly #assigned: AssignedPartitions;
  readonly #membership: ClassicMembership;
  readonly #commits: CommitRequestManager;
  readonly #positions: PositionInitializer;
  readonly #heartbeat: ClassicHeartbeatThread;
  readonly #joinLoop: JoinGroupLoop;
  readonly #leave: ClassicGroupLeave;
  readonly #processor: BatchProcessor;
  readonly #app: ApplicationThread;

  constructor(actorId: ActorId, config: ClassicMemberConfig, source: RecordSource, correlationIds: CorrelationIds, ctx: Context) {
    const consumer = config.consumer;
    const groupId = consumer["group.id"];
    const groupInstanceId = consumer["group.instance.id"];
    const maxPollIntervalMs = consumer["max.poll.interval.ms"];
    const now = ctx.now();
    this.#config = config;
    this.#source = source;

    const backoff = new ExponentialBackoff(consumer["retry.backoff.ms"], consumer["retry.backoff.max.ms"]);
    this.#channel = new RequestChannel(clientIdOf(actorId, consumer), consumer["request.timeout.ms"], correlationIds);

    // The observer reads the membership, the membership releases the assignment, which reports through the observer.
    const membership = new ClassicMembership(groupId, groupInstanceId);
    const observer = new MemberObserver({
      groupId,
      protocol: "classic",
      memberId: () => membership.memberId,
      memberEpoch: () => membership.generation.generationId,
    });
    this.#coordinator = new CoordinatorManager(groupId, config.bootstrap, this.#channel, observer, backoff);
    this.#assigned = new AssignedPartitions(source, observer);
    membership.attach(this.#assigned, observer);
    this.#membership = membership;
    const fail = (error: string, ctx: Context) => this.#fail(error, ctx);

    const identity: MemberIdentity = { groupId, memberId: "", groupInstanceId, memberEpoch: () => -1 };
    this.#commits = new CommitRequestManager(
      { autoCommit: config.app.commit === "auto", autoCommitIntervalMs: consumer["auto.commit.interval.ms"] },
      identity,
      new ClassicCommitProtocol(membership, fail),
      this.#channel,
      this.#coordinator,
      this.#assigned,
      source,
      observer,
      backoff,
      now,
    );
    // The classic client's OffsetFetch names no member (null id, epoch -1).
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
      groupMetadata: () => {
        const generation = membership.generation;
        return { groupId, generationId: generation.generationId, memberId: generation.memberId, groupInstanceId };
      },
    });
    this.#app = new ApplicationThread(
      config.app,
      consumer["max.poll.records"],
      source,
      observer,
      this.#applicationHooks(),
      this.#processor,
    );
    const leaveGroup = (reason: string, ctx: Context) => maybeLeaveGroup(membership, this.#coordinator, this.#channel, reason, ctx);
    this.#heartbeat = new ClassicHeartbeatThread({
      channel: this.#channel,
      coordinator: this.#coordinator,
      membership,
      timers: new HeartbeatTimers(
        {
          heartbeatIntervalMs: consumer["heartbeat.interval.ms"],
          sessionTimeoutMs: consumer["session.timeout.ms"],
          maxPollIntervalMs,
          retryBackoff: backoff,
        },
        now,
      ),
      observer,
      maxPollIntervalMs,
      leaveGroup,
      fail,
    });
    this.#joinLoop = new JoinGroupLoop(
      {
        sessionTimeoutMs: consumer["session.timeout.ms"],
        rebalanceTimeoutMs: maxPollIntervalMs,
        retryBackoffMs: consumer["retry.backoff.ms"],
        rackId: consumer["client.rack"] === "" ? null : consumer["client.rack"],
        assignors: config.assignors,
        protocol: config.rebalanceProtocol,
        partitionCounts: new Map(config.topics.map((topic) => [topic.name, topic.partitions])),
      },
      {
        membership,
        coordinator: this.#coordinator,
        channel: this.#channel,
        assigned: this.#assigned,
        commits: this.#commits,
        positions: this.#positions,
        listener: this.#app,
        assignorMemory: new AssignorMemory(),
        enableHeartbeat: (ctx) => this.#heartbeat.enable(ctx),
        fail,
      },
    );
    this.#leave = new ClassicGroupLeave({
      membership,
      assigned: this.#assigned,
      commits: this.#commits,
      listener: this.#app,
      abandonRebalanceCallbacks: () => this.#joinLoop.abandonCallbacks(),
      leaveGroup,
    });

    if (config.subscription.length > 0) membership.subscribe(config.subscription);
    ctx.log.info("classic consumer started", {
      groupId,
      instanceId: groupInstanceId,
      subscription: [...config.subscription],
      assignors: config.assignors.map((a) => a.name),
      rebalanceProtocol: config.rebalanceProtocol,
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

  /**
   * The host's clock was stepped. Kafka's heartbeat thread, while it is
   * enabled (the member has joined: COMPLETING_REBALANCE or STABLE), wakes
   * every retry.backoff.ms and reads the wall clock (`HeartbeatThread.run`):
   * a step that brings the poll deadline, the session's end or the next
   * heartbeat closer is acted on within that period, not at the wake the
   * thread had planned by the old clock. This member plans its wakes by the
   * clock exactly, so it plans them again now. A disabled thread (not
   * joined, or the consumer failed) waits to be enabled and reads nothing.
   */
  clockStepped(ctx: Context): void {
    const membership = this.#membership;
    if (!membership.isFatal && !hasNotJoinedGroup(membership.state)) this.#runBackground(ctx);
  }

  control(command: ControlCommand, ctx: Context): void {
    if (controlApplication(this.#app, command, ctx)) this.#runBackground(ctx);
  }

  snapshot(): JsonValue {
    const membership = this.#membership;
    const generation = membership.generation;
    return {
      memberId: generation.memberId,
      groupId: membership.groupId,
      instanceId: membership.groupInstanceId,
      state: membership.state,
      generation: generation.generationId,
      // The member epoch of the observation contract: the generation.
      memberEpoch: generation.generationId,
      protocolName: generation.protocolName,
      rebalanceProtocol: this.#config.rebalanceProtocol,
      leader: this.#joinLoop.isLeader,
      joinPhase: this.#joinLoop.phase,
      rejoinNeeded: membership.rejoinNeeded,
      owned: partitionsByTopic(this.#assigned.owned()),
      assigned: partitionsByTopic(this.#assigned.all()),
      fatalError: membership.fatalError,
      subscription: [...membership.subscription],
      coordinator: this.#coordinator.coordinator,
      app: this.#app.snapshot(),
      processing: this.#processor.snapshot(),
    };
  }

  #applicationHooks(): ApplicationHooks {
    return {
      // `ConsumerCoordinator.poll`: the poll timer (`pollHeartbeat`), the join loop, then the interval auto-commit.
      onPollEntered: (ctx) => {
        this.#heartbeat.resetPollTimer(ctx);
        this.#joinLoop.run(ctx);
        this.#maybeAutoCommitOnPoll(ctx);
      },
      // Every round of a waiting poll() runs `ConsumerCoordinator.poll` again; the top of a pass restarts the poll timer.
      onPollIteration: (ctx, passBegins) => {
        if (passBegins) this.#heartbeat.resetPollTimer(ctx);
        this.#joinLoop.run(ctx);
        this.#maybeAutoCommitOnPoll(ctx);
      },
      // `ConsumerCoordinator.timeToNextPoll`: the next heartbeat or interval auto-commit.
      passWaitUs: (now) => Math.min(this.#heartbeat.timeToNextHeartbeat(now), this.#commits.timeToNextAutoCommit(now)),
      isFatal: () => this.#membership.isFatal,
      isSubscribed: () => this.#membership.subscription.length > 0,
      subscribe: (topics) => this.#membership.subscribe(topics),
      leave: (reason, ctx, onDone) => this.#leave.leave(reason, ctx, onDone),
      commitSync: (ctx, onDone) => this.#commits.commitSync(this.#config.consumer["default.api.timeout.ms"], ctx, (ctx) => onDone(ctx)),
    };
  }

  /**
   * The interval auto-commit at the end of `ConsumerCoordinator.poll`, which
   * returns before it while a rebalance is still pending (`ensureActiveGroup`
   * did not finish): no interval auto-commit is made during a rebalance.
   */
  #maybeAutoCommitOnPoll(ctx: Context): void {
    if (this.#joinLoop.rejoinNeededOrPending(ctx)) return;
    this.#commits.maybeAutoCommitOnPoll(ctx);
  }

  /**
   * A fatal error (poll() throws it; the consumer is done): the partitions
   * are lost now, onPartitionsLost runs (unless a close is releasing them),
   * the join loop and the heartbeat thread stop.
   */
  #fail(error: string, ctx: Context): void {
    if (!this.#membership.markFatal(error, ctx)) return;
    ctx.log.error("fatal error: the consumer stops", { error });
    this.#joinLoop.abandonCallbacks();
    const lost = this.#assigned.all();
    this.#assigned.releaseAll("lost", ctx);
    if (lost.length === 0 || this.#leave.leaving) return;
    this.#app.invoke("onPartitionsLost", lost, ctx, (ctx) => this.#assigned.clear("lost", ctx));
  }

  #runBackground(ctx: Context): void {
    if (this.#app.closed) {
      ctx.cancelTimer(BACKGROUND_TIMER);
      return;
    }
    for (let round = 0; round < 8; round++) {
      const before = this.#membership.version;
      // A failed consumer no longer looks for its coordinator.
      if (!this.#membership.isFatal) this.#coordinator.poll(ctx);
      this.#heartbeat.poll(ctx);
      this.#commits.poll(ctx);
      this.#positions.poll(ctx);
      if (this.#membership.version === before) break;
    }
    this.#joinLoop.failRoundIfCoordinatorLost();
    // The join loop runs inside poll(): a poll() waiting for records wakes when it can move on (or must throw), in a
    // new pass of its loop (ConsumerCoordinator.poll runs at the top of each).
    if (this.#app.waitingInPoll && (this.#membership.isFatal || this.#joinLoop.needsPoll(ctx))) this.#app.wake(ctx, true);
    this.#app.refreshPollWait(ctx);

    const now = ctx.now();
    let next = earlier(null, this.#heartbeat.nextWakeAt(now));
    next = earlier(next, this.#joinLoop.nextWakeAt(now));
    if (!this.#membership.isFatal) next = earlier(next, this.#coordinator.nextWakeAt(now));
    next = earlier(next, this.#commits.nextWakeAt(now));
    next = earlier(next, this.#positions.nextWakeAt(now));
    if (next === null || !Number.isFinite(next)) ctx.cancelTimer(BACKGROUND_TIMER);
    // At least 1us ahead: something due now was done above, so re-checking at the same instant could spin.
    else ctx.setTimer(BACKGROUND_TIMER, Math.max(1, next - now));
  }
}
