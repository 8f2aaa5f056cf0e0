import { type ActorId, type Context, type Message, type MessageOf, type MessageType, ms, type ResponseMessage } from "@kcsim/protocol";

/** The coordinator-facing responses the member handles itself (KIP-848 and classic); any other message goes to its RecordSource. */
const MEMBER_RESPONSE_TYPES = new Set<MessageType>([
  "ConsumerGroupHeartbeatResponse",
  "FindCoordinatorResponse",
  "OffsetCommitResponse",
  "OffsetFetchResponse",
  "JoinGroupResponse",
  "SyncGroupResponse",
  "HeartbeatResponse",
  "LeaveGroupResponse",
]);

type MemberResponseType =
  | "ConsumerGroupHeartbeatResponse"
  | "FindCoordinatorResponse"
  | "OffsetCommitResponse"
  | "OffsetFetchResponse"
  | "JoinGroupResponse"
  | "SyncGroupResponse"
  | "HeartbeatResponse"
  | "LeaveGroupResponse";

interface PendingRequest {
  readonly to: ActorId;
  readonly responseType: MemberResponseType;
  readonly onResponse: (response: ResponseMessage, ctx: Context) => void;
  readonly onTransportFailure: (ctx: Context) => void;
}

const TIMEOUT_TIMER_PREFIX = "request-timeout.";

/**
 * The member's side of the network: correlation ids, and request timeouts.
 * A request with no response within request.timeout.ms is a transport
 * failure (Kafka's NetworkClient disconnects and fails it); a response that
 * comes later, twice, or from the wrong actor is dropped.
 */
export class RequestChannel {
  readonly #clientId: string;
  readonly #requestTimeoutMs: number;
  readonly #pending = new Map<number, PendingRequest>();
  #nextCorrelationId = 1;

  constructor(clientId: string, requestTimeoutMs: number) {
    this.#clientId = clientId;
    this.#requestTimeoutMs = requestTimeoutMs;
  }

  get clientId(): string {
    return this.#clientId;
  }

  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  nextCorrelationId(): number {
    return this.#nextCorrelationId++;
  }

  static handles(message: Message): boolean {
    return MEMBER_RESPONSE_TYPES.has(message.type);
  }

  /**
   * Sends a request built with `correlationId` and waits for the response of
   * type `responseType`, for request.timeout.ms or `timeoutMs` when given
   * (the classic JoinGroup waits longer: it may block for a whole rebalance).
   */
  send<R extends MemberResponseType>(
    ctx: Context,
    to: ActorId,
    request: Message & { correlationId: number },
    responseType: R,
    onResponse: (response: MessageOf<R>, ctx: Context) => void,
    onTransportFailure: (ctx: Context) => void,
    timeoutMs: number = this.#requestTimeoutMs,
  ): void {
    this.#pending.set(request.correlationId, {
      to,
      responseType,
      onResponse: onResponse as (response: ResponseMessage, ctx: Context) => void,
      onTransportFailure,
    });
    ctx.send(to, request);
    ctx.setTimer(`${TIMEOUT_TIMER_PREFIX}${request.correlationId}`, ms(timeoutMs));
  }

  /** Delivers a response to its request; false if nothing waits for it. */
  receive(from: ActorId, message: Message, ctx: Context): boolean {
    if (!("correlationId" in message)) return false;
    const pending = this.#pending.get(message.correlationId);
    if (pending === undefined || pending.to !== from || pending.responseType !== message.type) {
      ctx.log.debug("dropped a response nothing waits for", { type: message.type, from, correlationId: message.correlationId });
      return false;
    }
    this.#pending.delete(message.correlationId);
    ctx.cancelTimer(`${TIMEOUT_TIMER_PREFIX}${message.correlationId}`);
    pending.onResponse(message as ResponseMessage, ctx);
    return true;
  }

  /** Handles a request-timeout timer; false if the timer is not one of ours. */
  fire(timer: string, ctx: Context): boolean {
    if (!timer.startsWith(TIMEOUT_TIMER_PREFIX)) return false;
    const correlationId = Number(timer.slice(TIMEOUT_TIMER_PREFIX.length));
    const pending = this.#pending.get(correlationId);
    if (pending === undefined) return true;
    this.#pending.delete(correlationId);
    ctx.log.info("request timed out", { type: pending.responseType, to: pending.to, correlationId });
    pending.onTransportFailure(ctx);
    return true;
  }
}
