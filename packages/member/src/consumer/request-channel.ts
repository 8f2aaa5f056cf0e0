import { type ActorId, type Context, type Message, type MessageOf, type MessageType, ms, type ResponseMessage } from "@kcsim/protocol";
import type { CorrelationIds } from "./correlation-ids.js";

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

/**
 * How a request ended without a response:
 * - `TIMEOUT`: none came within its timeout;
 * - `NETWORK_EXCEPTION`: its connection closed under it (Kafka's
 *   DisconnectException): the peer reset it, or another request on it timed out.
 */
export type TransportFailure = "TIMEOUT" | "NETWORK_EXCEPTION";

/**
 * Which of the consumer's connections to a peer a request travels on. Kafka
 * talks to the group coordinator over a connection of its own (node id
 * Integer.MAX_VALUE - id), beside the ordinary one to the same broker that
 * FindCoordinator uses, so a timeout on one does not close the other.
 */
export type ConnectionRole = "coordinator" | "broker";

/** The kernel's name for the connection of a role ("" is a client's ordinary connection to a node). */
const connectionName = (role: ConnectionRole): string => (role === "coordinator" ? "coordinator" : "");

export interface SendOptions {
  /** How long to wait for the response; request.timeout.ms by default (the classic JoinGroup waits for a whole rebalance). */
  readonly timeoutMs?: number;
  /** The coordinator connection by default. */
  readonly connection?: ConnectionRole;
}

interface PendingRequest {
  readonly correlationId: number;
  readonly to: ActorId;
  readonly connection: ConnectionRole;
  readonly responseType: MemberResponseType;
  readonly onResponse: (response: ResponseMessage, ctx: Context) => void;
  readonly onTransportFailure: (ctx: Context, failure: TransportFailure) => void;
}

const TIMEOUT_TIMER_PREFIX = "request-timeout.";

/**
 * The member's side of the network (the part of Kafka's NetworkClient it
 * needs): correlation ids, request timeouts and disconnects.
 * - A request with no response within its timeout closes its connection,
 *   as NetworkClient.handleTimedOutRequests does: it fails (`TIMEOUT`) and
 *   so does every other request in flight on that connection
 *   (`NETWORK_EXCEPTION`).
 * - A peer that resets the connection (SimDisconnect: its process is not
 *   running) fails every request in flight to it at once (`NETWORK_EXCEPTION`).
 * Each failure goes to its request's own handler, which retries with its
 * usual backoff. A response that comes later, twice, or from the wrong
 * actor is dropped.
 */
export class RequestChannel {
  readonly #clientId: string;
  readonly #requestTimeoutMs: number;
  readonly #correlationIds: CorrelationIds;
  /** In correlation id order (= send order). */
  readonly #pending = new Map<number, PendingRequest>();

  constructor(clientId: string, requestTimeoutMs: number, correlationIds: CorrelationIds) {
    this.#clientId = clientId;
    this.#requestTimeoutMs = requestTimeoutMs;
    this.#correlationIds = correlationIds;
  }

  get clientId(): string {
    return this.#clientId;
  }

  get requestTimeoutMs(): number {
    return this.#requestTimeoutMs;
  }

  nextCorrelationId(): number {
    return this.#correlationIds.next();
  }

  static handles(message: Message): boolean {
    return MEMBER_RESPONSE_TYPES.has(message.type);
  }

  /** Sends a request built with `correlationId` and waits for the response of type `responseType`. */
  send<R extends MemberResponseType>(
    ctx: Context,
    to: ActorId,
    request: Message & { correlationId: number },
    responseType: R,
    onResponse: (response: MessageOf<R>, ctx: Context) => void,
    onTransportFailure: (ctx: Context, failure: TransportFailure) => void,
    options: SendOptions = {},
  ): void {
    const correlationId = request.correlationId;
    this.#pending.set(correlationId, {
      correlationId,
      to,
      connection: options.connection ?? "coordinator",
      responseType,
      onResponse: onResponse as (response: ResponseMessage, ctx: Context) => void,
      onTransportFailure,
    });
    ctx.send(to, request, connectionName(options.connection ?? "coordinator"));
    ctx.setTimer(`${TIMEOUT_TIMER_PREFIX}${correlationId}`, ms(options.timeoutMs ?? this.#requestTimeoutMs));
  }

  /** Delivers a response to its request; false if nothing waits for it. */
  receive(from: ActorId, message: Message, ctx: Context): boolean {
    if (!("correlationId" in message)) return false;
    const pending = this.#pending.get(message.correlationId);
    if (pending === undefined || pending.to !== from || pending.responseType !== message.type) {
      ctx.log.debug("dropped a response nothing waits for", { type: message.type, from, correlationId: message.correlationId });
      return false;
    }
    this.#forget(pending, ctx);
    pending.onResponse(message as ResponseMessage, ctx);
    return true;
  }

  /** Handles a request-timeout timer (closing the request's connection); false if the timer is not one of ours. */
  fire(timer: string, ctx: Context): boolean {
    if (!timer.startsWith(TIMEOUT_TIMER_PREFIX)) return false;
    const timedOut = this.#pending.get(Number(timer.slice(TIMEOUT_TIMER_PREFIX.length)));
    if (timedOut === undefined) return true;
    const closed = [...this.#pending.values()].filter(
      (pending) => pending !== timedOut && pending.to === timedOut.to && pending.connection === timedOut.connection,
    );
    ctx.log.info("request timed out; closing its connection", {
      type: timedOut.responseType,
      to: timedOut.to,
      correlationId: timedOut.correlationId,
      alsoFailed: closed.length,
    });
    this.#pending.delete(timedOut.correlationId); // its timer just fired
    for (const pending of closed) this.#forget(pending, ctx);
    ctx.closeConnection(timedOut.to, connectionName(timedOut.connection));
    timedOut.onTransportFailure(ctx, "TIMEOUT");
    for (const pending of closed) pending.onTransportFailure(ctx, "NETWORK_EXCEPTION");
    return true;
  }

  /**
   * The connection `connection` to `peer` is gone (a SimDisconnect: the
   * peer reset or closed it, or it broke): every request in flight on it
   * fails at once as a disconnect ("*": every connection to the peer, as a
   * datagram-mode reset says). Returns whether there was any.
   */
  disconnect(peer: ActorId, reason: string, connection: string, ctx: Context): boolean {
    const failed = [...this.#pending.values()].filter(
      (pending) => pending.to === peer && (connection === "*" || connectionName(pending.connection) === connection),
    );
    if (failed.length === 0) return false;
    ctx.log.info("connection lost; failing its requests", { peer, reason, connection, failed: failed.length });
    this.#fail(failed, "NETWORK_EXCEPTION", ctx);
    return true;
  }

  /** Forgets every request first, then runs their handlers (which may send anew, on a new connection). */
  #fail(requests: readonly PendingRequest[], failure: TransportFailure, ctx: Context): void {
    for (const pending of requests) this.#forget(pending, ctx);
    for (const pending of requests) pending.onTransportFailure(ctx, failure);
  }

  #forget(pending: PendingRequest, ctx: Context): void {
    this.#pending.delete(pending.correlationId);
    ctx.cancelTimer(`${TIMEOUT_TIMER_PREFIX}${pending.correlationId}`);
  }
}
