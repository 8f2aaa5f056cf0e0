import {
  type ActorId,
  type Context,
  CoordinatorKeyType,
  ErrorCode,
  type ExponentialBackoff,
  errorName,
  type FindCoordinatorResponse,
  type Micros,
  randomInt,
} from "@kcsim/protocol";
import type { MemberObserver } from "./member-observer.js";
import type { RequestChannel } from "./request-channel.js";
import { RequestState } from "./request-state.js";

/**
 * Finds the group coordinator (Kafka's `CoordinatorRequestManager`): while
 * it is unknown, FindCoordinator(GROUP, group id) goes to a bootstrap broker
 * (over the ordinary connection, not the coordinator one), one at a time,
 * with exponential backoff after a failed or unanswered attempt (each
 * failure moves on to the next bootstrap broker). The answer's `host` is the
 * coordinator's actor id. Every change of the known coordinator is reported
 * as a `member.coordinator` observation.
 */
export class CoordinatorManager {
  readonly #groupId: string;
  readonly #bootstrap: readonly ActorId[];
  readonly #channel: RequestChannel;
  readonly #observer: MemberObserver;
  readonly #state: RequestState;
  #coordinator: ActorId | null = null;
  #nextBootstrap: number | null = null;

  constructor(
    groupId: string,
    bootstrap: readonly ActorId[],
    channel: RequestChannel,
    observer: MemberObserver,
    backoff: ExponentialBackoff,
  ) {
    this.#groupId = groupId;
    this.#bootstrap = bootstrap;
    this.#channel = channel;
    this.#observer = observer;
    this.#state = new RequestState(backoff);
  }

  get coordinator(): ActorId | null {
    return this.#coordinator;
  }

  /** The coordinator moved or failed (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a transport failure). */
  markUnknown(reason: string, ctx: Context): void {
    if (this.#coordinator === null) return;
    ctx.log.info("group coordinator marked unknown", { coordinator: this.#coordinator, reason });
    this.#coordinator = null;
    this.#observer.coordinator(ctx, null);
  }

  /** Sends a FindCoordinator if the coordinator is unknown and none is in flight or backing off. */
  poll(ctx: Context): void {
    // Asked after every event: the request, and the closures it makes, live in #findCoordinator so that asking costs nothing.
    if (this.#coordinator === null && this.#state.canSendRequest(ctx.now())) this.#findCoordinator(ctx);
  }

  #findCoordinator(ctx: Context): void {
    // Start at a random broker so members spread over the bootstrap list.
    this.#nextBootstrap ??= randomInt(() => ctx.random(), 0, this.#bootstrap.length - 1);
    const broker = this.#bootstrap[this.#nextBootstrap] as ActorId;
    const correlationId = this.#channel.nextCorrelationId();
    this.#channel.send(
      ctx,
      broker,
      {
        type: "FindCoordinatorRequest",
        correlationId,
        apiVersion: 4,
        clientId: this.#channel.clientId,
        keyType: CoordinatorKeyType.GROUP,
        coordinatorKeys: [this.#groupId],
      },
      "FindCoordinatorResponse",
      (response, ctx) => this.#onResponse(response, ctx),
      (ctx, failure) => this.#onFailure(failure, ctx),
      { connection: "broker" },
    );
    this.#state.onSendAttempt();
  }

  /** When poll() may next have something to send, or null. */
  nextWakeAt(now: Micros): Micros | null {
    if (this.#coordinator !== null || this.#state.inFlight) return null;
    return now + this.#state.remainingBackoff(now);
  }

  #onResponse(response: FindCoordinatorResponse, ctx: Context): void {
    const entry = response.coordinators.find((c) => c.key === this.#groupId);
    if (entry === undefined) {
      this.#onFailure("response without the group", ctx);
      return;
    }
    if (entry.errorCode !== ErrorCode.NONE) {
      this.#onFailure(errorName(entry.errorCode), ctx);
      return;
    }
    this.#state.onSuccessfulAttempt(ctx.now());
    this.#coordinator = entry.host;
    ctx.log.info("group coordinator found", { coordinator: entry.host, nodeId: entry.nodeId });
    this.#observer.coordinator(ctx, entry.host);
  }

  #onFailure(reason: string, ctx: Context): void {
    this.#state.onFailedAttempt(ctx.now());
    this.#nextBootstrap = ((this.#nextBootstrap ?? 0) + 1) % this.#bootstrap.length;
    ctx.log.info("FindCoordinator failed, will retry", { reason, backoffUs: this.#state.remainingBackoff(ctx.now()) });
  }
}
