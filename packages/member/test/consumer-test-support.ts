import type { RecordSource } from "@kcsim/fetch";
import {
  type Actor,
  type ActorId,
  type ActorLogger,
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  type Context,
  type DurableLog,
  decode,
  ErrorCode,
  encode,
  type JsonValue,
  type Message,
  type MessageOf,
  type MessageType,
  type Micros,
  ms,
  type Observation,
  type OffsetCommitRequest,
  type OffsetFetchRequest,
  streamFor,
  topicIdFor,
} from "@kcsim/protocol";
import { createConsumerMember } from "../src/consumer/consumer-member.js";
import type { RecordRange, RecordsObservation } from "../src/observations.js";

/** The last item matching `predicate` (Array.prototype.findLast is ES2023; the project targets ES2022). */
export function lastWhere<T>(items: readonly T[], predicate: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as T;
    if (predicate(item)) return item;
  }
  return undefined;
}

/** The offsets an OffsetCommit request commits, as "topic-partition" -> offset. */
export function committedOffsetsOf(request: OffsetCommitRequest): Record<string, number> {
  const out: Record<string, number> = {};
  for (const topic of request.topics) for (const p of topic.partitions) out[`${topic.name}-${p.partitionIndex}`] = p.committedOffset;
  return out;
}

export const T1_ID = topicIdFor("T1");
export const T2_ID = topicIdFor("T2");
export const COORDINATOR = "coordinator-0";
export const BROKER = "broker-0";

export interface Sent {
  readonly at: Micros;
  readonly to: ActorId;
  readonly message: Message;
}

export interface Seen {
  readonly at: Micros;
  readonly observation: Observation;
}

/**
 * A Context for one actor under test: a manual virtual clock (and the
 * actor's own clock, which a clock step moves away from it), timers fired
 * in (due, arming order), every sent message checked against its wire
 * schema (encode + decode) and recorded, every observation recorded.
 */
export class FakeContext implements Context {
  readonly self: ActorId;
  readonly sent: Sent[] = [];
  readonly seen: Seen[] = [];
  readonly logs: { level: string; message: string }[] = [];
  readonly timers = new Map<string, { due: Micros; seq: number }>();
  #now: Micros = 0;
  #clockOffset: Micros = 0;
  #seq = 0;
  readonly #random: () => number;
  readonly #records: unknown[] = [];
  readonly storage: DurableLog;
  readonly log: ActorLogger;

  constructor(self: ActorId, seed = 1) {
    this.self = self;
    this.#random = streamFor(seed, self).next;
    const records = this.#records;
    this.storage = {
      append: (record) => records.push(record),
      readAll: () => [...records],
      get length() {
        return records.length;
      },
    };
    const at = (level: string) => (message: string) => {
      this.logs.push({ level, message });
    };
    this.log = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  }

  /** The actor's own clock: virtual time plus the clock steps applied to it. */
  now(): Micros {
    return this.#now + this.#clockOffset;
  }

  /** Virtual time, which timers, sends and observations are stamped with. */
  virtualNow(): Micros {
    return this.#now;
  }

  setNow(now: Micros): void {
    this.#now = now;
  }

  /** Steps the actor's clock (the nemesis `clock-step`): its `now()` moves, its armed timers do not. */
  stepClock(deltaUs: Micros): void {
    this.#clockOffset += deltaUs;
  }

  send(to: ActorId, message: Message): void {
    this.sent.push({ at: this.#now, to, message: decode(encode(message)) });
  }

  setTimer(name: string, after: Micros): void {
    if (!Number.isInteger(after) || after < 0) throw new RangeError(`timer ${name}: bad delay ${after}`);
    this.timers.set(name, { due: this.#now + after, seq: ++this.#seq });
  }

  cancelTimer(name: string): void {
    this.timers.delete(name);
  }

  /** The datagram-like test network has no connections to close or configure. */
  closeConnection(): void {}
  configureConnections(): void {}
  hasTimer(name: string): boolean {
    return this.timers.has(name);
  }

  random(): number {
    return this.#random();
  }

  observe(event: Observation): void {
    this.seen.push({ at: this.#now, observation: JSON.parse(JSON.stringify(event)) as Observation });
  }

  /** The next timer due at or before `until`, in (due, arming order). */
  nextTimer(until: Micros): { name: string; due: Micros } | null {
    let best: { name: string; due: Micros; seq: number } | null = null;
    for (const [name, { due, seq }] of this.timers) {
      if (due > until) continue;
      if (best === null || due < best.due || (due === best.due && seq < best.seq)) best = { name, due, seq };
    }
    return best;
  }
}

export interface TestConfigOverrides {
  readonly consumer?: Record<string, JsonValue>;
  readonly app?: Record<string, JsonValue>;
  readonly source?: Record<string, JsonValue>;
  readonly subscription?: readonly string[];
  readonly bootstrap?: readonly string[];
}

export function testConfig(overrides: TestConfigOverrides = {}): JsonValue {
  return {
    consumer: { "group.id": "g1", "group.protocol": "consumer", ...overrides.consumer },
    bootstrap: [...(overrides.bootstrap ?? [BROKER])],
    subscription: [...(overrides.subscription ?? ["T1"])],
    topics: [
      { name: "T1", id: T1_ID, partitions: 4 },
      { name: "T2", id: T2_ID, partitions: 2 },
    ],
    app: { processingMsPerRecord: 1, pollTimeoutMs: 1000, ...overrides.app },
    source: { kind: "synthetic", recordsPerSecondPerPartition: 10, recordBytes: 100, ...overrides.source },
  };
}

export interface HeartbeatReply {
  readonly epoch?: number;
  readonly intervalMs?: number;
  /** Partitions by topic id; undefined = no assignment field (null). */
  readonly assignment?: Readonly<Record<string, readonly number[]>>;
  readonly error?: number;
}

/** An actor factory of the member package ("consumer" by default; the classic tests pass theirs). */
export type MemberFactory = (id: string, config: JsonValue, options: { recordSource?: RecordSource }) => Actor;

export interface DriverOptions {
  readonly recordSource?: RecordSource;
  readonly seed?: number;
  readonly create?: MemberFactory;
}

/** Drives one consumer actor by hand: time, timers, scripted responses. */
export class ConsumerDriver {
  readonly ctx: FakeContext;
  readonly actor: Actor;
  #cursor = 0;

  constructor(config: JsonValue = testConfig(), options: DriverOptions = {}) {
    this.ctx = new FakeContext("member-1", options.seed ?? 1);
    const create = options.create ?? createConsumerMember;
    this.actor = create("member-1", config, options.recordSource === undefined ? {} : { recordSource: options.recordSource });
    this.actor.start(this.ctx);
  }

  /** Virtual time. */
  get now(): Micros {
    return this.ctx.virtualNow();
  }

  /** Advances virtual time by `durationMs`, firing every timer due on the way. */
  run(durationMs: number): void {
    this.runUntilTime(this.ctx.virtualNow() + ms(durationMs));
  }

  runUntilTime(until: Micros): void {
    for (let guard = 0; guard < 1_000_000; guard++) {
      const timer = this.ctx.nextTimer(until);
      if (timer === null) break;
      this.ctx.setNow(timer.due);
      this.ctx.timers.delete(timer.name);
      this.actor.fire(timer.name, this.ctx);
    }
    this.ctx.setNow(until);
  }

  /** Runs until `done()` holds (checked after every timer), for at most `maxMs`. */
  runUntil(done: () => boolean, maxMs = 600_000): void {
    const until = this.ctx.virtualNow() + ms(maxMs);
    for (let guard = 0; guard < 1_000_000 && !done(); guard++) {
      const timer = this.ctx.nextTimer(until);
      if (timer === null) {
        this.ctx.setNow(until);
        break;
      }
      this.ctx.setNow(timer.due);
      this.ctx.timers.delete(timer.name);
      this.actor.fire(timer.name, this.ctx);
    }
    if (!done()) throw new Error(`condition not reached within ${maxMs} ms (now ${this.ctx.virtualNow()}us, state ${this.state})`);
  }

  control(command: string, fields: Record<string, JsonValue> = {}): void {
    this.actor.control?.({ command, ...fields }, this.ctx);
  }

  /** Every message delivered to the actor, with the time. */
  readonly delivered: { at: Micros; message: Message }[] = [];

  deliver(from: ActorId, message: Message): void {
    this.delivered.push({ at: this.ctx.virtualNow(), message });
    this.actor.receive(from, message, this.ctx);
  }

  // ---- what the actor did ---------------------------------------------------

  sentOf<T extends MessageType>(type: T): (Sent & { message: MessageOf<T> })[] {
    return this.ctx.sent.filter((s) => s.message.type === type) as (Sent & { message: MessageOf<T> })[];
  }

  /** Messages sent since the last call (all types). */
  takeSent(): Sent[] {
    const out = this.ctx.sent.slice(this.#cursor);
    this.#cursor = this.ctx.sent.length;
    return out;
  }

  lastOf<T extends MessageType>(type: T): Sent & { message: MessageOf<T> } {
    const all = this.sentOf(type);
    const last = all[all.length - 1];
    if (last === undefined) throw new Error(`no ${type} sent`);
    return last;
  }

  heartbeats(): (Sent & { message: ConsumerGroupHeartbeatRequest })[] {
    return this.sentOf("ConsumerGroupHeartbeatRequest");
  }

  observations<T extends string>(type: T): (Observation & { type: T })[] {
    return this.ctx.seen.filter((s) => s.observation.type === type).map((s) => s.observation as Observation & { type: T });
  }

  /** Every poll's return, in order: its `member.poll` (it returned nothing) or its `member.records` (what it returned). */
  polls(): Observation[] {
    return this.ctx.seen.filter((s) => isPollReturn(s.observation)).map((s) => s.observation);
  }

  /** The partition ranges of every `member.records` (one per poll), in order: what the application was handed, per partition. */
  recordRanges(): RecordRange[] {
    return this.observations("member.records").flatMap((o) => (o as unknown as RecordsObservation).ranges);
  }

  /** Observations of the given types, in order, as compact strings (for ordering assertions). */
  timeline(...types: string[]): string[] {
    return this.ctx.seen
      .filter((s) => types.includes(s.observation.type))
      .map(({ observation: o }) => {
        switch (o.type) {
          case "member.state":
            return `state ${o.from}->${o.to}`;
          case "member.owned":
            return `owned ${JSON.stringify(o.owned)} ${o.cause}`;
          case "member.callback":
            return `${o.callback} ${o.phase} ${JSON.stringify(o.partitions)}`;
          case "member.commit":
            return `commit ${o.kind} ${o.result}`;
          default:
            return o.type;
        }
      });
  }

  get snapshot(): Record<string, JsonValue> {
    return this.actor.snapshot?.() as Record<string, JsonValue>;
  }

  get state(): string {
    return String(this.snapshot.state);
  }

  get epoch(): number {
    return Number(this.snapshot.memberEpoch);
  }

  // ---- scripted coordinator -------------------------------------------------

  answerFindCoordinator(host = COORDINATOR, errorCode: number = ErrorCode.NONE): void {
    const request = this.lastOf("FindCoordinatorRequest");
    this.deliver(request.to, {
      type: "FindCoordinatorResponse",
      correlationId: request.message.correlationId,
      throttleTimeMs: 0,
      coordinators: [{ key: "g1", nodeId: 0, host, port: 9092, errorCode, errorMessage: null }],
    });
  }

  heartbeatResponse(request: ConsumerGroupHeartbeatRequest, reply: HeartbeatReply): ConsumerGroupHeartbeatResponse {
    const assignment = reply.assignment;
    return {
      type: "ConsumerGroupHeartbeatResponse",
      correlationId: request.correlationId,
      throttleTimeMs: 0,
      errorCode: reply.error ?? ErrorCode.NONE,
      errorMessage: null,
      memberId: request.memberId,
      memberEpoch: reply.epoch ?? request.memberEpoch,
      heartbeatIntervalMs: reply.intervalMs ?? 5000,
      assignment:
        assignment === undefined
          ? null
          : { topicPartitions: Object.entries(assignment).map(([topicId, partitions]) => ({ topicId, partitions: [...partitions] })) },
    };
  }

  /** Answers the most recent heartbeat. */
  answerHeartbeat(reply: HeartbeatReply = {}): ConsumerGroupHeartbeatRequest {
    const request = this.lastOf("ConsumerGroupHeartbeatRequest");
    this.#answered.add(request.message.correlationId);
    this.deliver(request.to, this.heartbeatResponse(request.message, reply));
    return request.message;
  }

  readonly #answered = new Set<number>();

  /**
   * Runs `durationMs` with a coordinator that answers every heartbeat once,
   * as soon as it is sent: by default a joining member gets epoch 1 and
   * `assignment`, others keep their epoch.
   */
  runWithCoordinator(durationMs: number, assignment: Readonly<Record<string, readonly number[]>> = { [T1_ID]: [0, 1] }): void {
    const until = this.ctx.virtualNow() + ms(durationMs);
    const answerNew = () => {
      for (const { to, message } of this.heartbeats()) {
        if (this.#answered.has(message.correlationId)) continue;
        this.#answered.add(message.correlationId);
        const reply: HeartbeatReply = message.memberEpoch === 0 ? { epoch: 1, assignment } : { epoch: message.memberEpoch };
        this.deliver(to, this.heartbeatResponse(message, reply));
      }
    };
    answerNew();
    for (let guard = 0; guard < 1_000_000; guard++) {
      const timer = this.ctx.nextTimer(until);
      if (timer === null) break;
      this.ctx.setNow(timer.due);
      this.ctx.timers.delete(timer.name);
      this.actor.fire(timer.name, this.ctx);
      answerNew();
    }
    this.ctx.setNow(until);
  }

  /**
   * Answers the last OffsetFetch: a committed offset, or a partition-level
   * error, per partition ("T1-0" -> offset | {error}; -1 if not listed), and a group-level error code.
   */
  answerOffsetFetch(
    committed: Readonly<Record<string, number | { readonly error: number }>> = {},
    errorCode: number = ErrorCode.NONE,
  ): OffsetFetchRequest {
    const request = this.lastOf("OffsetFetchRequest");
    const group = request.message.groups[0];
    this.deliver(request.to, {
      type: "OffsetFetchResponse",
      correlationId: request.message.correlationId,
      throttleTimeMs: 0,
      groups: [
        {
          groupId: "g1",
          errorCode,
          topics: (group?.topics ?? []).map((topic) => ({
            name: topic.name,
            partitions: topic.partitionIndexes.map((partitionIndex) => {
              const answer = committed[`${topic.name}-${partitionIndex}`] ?? -1;
              return {
                partitionIndex,
                committedOffset: typeof answer === "number" ? answer : -1,
                committedLeaderEpoch: -1,
                metadata: null,
                errorCode: typeof answer === "number" ? ErrorCode.NONE : answer.error,
              };
            }),
          })),
        },
      ],
    });
    return request.message;
  }

  answerOffsetCommit(errorCode: number = ErrorCode.NONE, request = this.lastOf("OffsetCommitRequest")): OffsetCommitRequest {
    this.deliver(request.to, {
      type: "OffsetCommitResponse",
      correlationId: request.message.correlationId,
      throttleTimeMs: 0,
      topics: request.message.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
      })),
    });
    return request.message;
  }

  /**
   * Start -> coordinator found -> first poll joins -> the coordinator
   * assigns `partitions` of T1 at `epoch` -> reconciled and acknowledged ->
   * STABLE, positions fetched (nothing committed: reset to latest).
   */
  joinStable(partitions: readonly number[] = [0, 1], epoch = 1, intervalMs = 5000): void {
    this.answerFindCoordinator();
    this.run(0);
    this.answerHeartbeat({ epoch, intervalMs, assignment: { [T1_ID]: partitions } });
    this.runUntil(() => this.state === "STABLE");
    this.answerHeartbeat({ epoch, intervalMs });
    if (partitions.length > 0) this.answerOffsetFetch();
  }
}

/**
 * Steps a member's clock back by `stepMs` right after one of its polls
 * (so that poll's reading is the most its clock has read), lets it poll
 * `polls` more times before the clock catches up, then pauses its
 * application thread. `run(done)` advances time as the test's driver does.
 * Returns the clock's high-water mark and the last poll's virtual time.
 */
export function pollAcrossBackwardStep(
  driver: ConsumerDriver,
  stepMs: number,
  polls: number,
  run: (done: () => boolean) => void,
): { highWater: Micros; lastPoll: Micros } {
  const count = () => driver.polls().length;
  const before = count();
  run(() => count() > before);
  // The clock's reading at that poll: nothing read it later before the step.
  const highWater = driver.now;
  driver.ctx.stepClock(-ms(stepMs));
  run(() => count() > before + polls);
  driver.control("pause-app");
  const lastPoll = lastWhere(driver.ctx.seen, (s) => isPollReturn(s.observation))?.at ?? -1;
  return { highWater, lastPoll };
}

/** Whether an observation is a restart of the poll timer: the top of a pass of poll()'s loop (or a classic JoinGroup answered). */
export const isPollTimerRestart = (o: Observation): boolean => o.type === "member.poll-timer-reset";

/** Whether an observation is a poll() returning: a `member.poll` (nothing) or a `member.records` (records). */
export const isPollReturn = (o: Observation): boolean => o.type === "member.poll" || o.type === "member.records";

/** The member's poll timeouts so far, as [virtual time, lastPollUs]. */
export function pollTimeouts(driver: ConsumerDriver): [Micros, number][] {
  return driver.ctx.seen.flatMap((s): [Micros, number][] =>
    s.observation.type === "member.poll-timeout" ? [[s.at, (s.observation as unknown as { lastPollUs: number }).lastPollUs]] : [],
  );
}
