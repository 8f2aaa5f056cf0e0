import type { RecordSource } from "@kcsim/fetch";
import type { ActorId, Context, Message } from "@kcsim/protocol";
import { RequestChannel } from "./request-channel.js";

/**
 * The consumer's two clients, its RequestChannel (group coordination, and
 * FindCoordinator to a broker) and its RecordSource (the fetcher), share
 * the consumer's connections to brokers, as they share one NetworkClient in
 * Kafka: a connection either of them closes (a request timed out) fails
 * what the other has in flight on it too.
 */

/**
 * Hands a message that reached the consumer to whoever it is for:
 * responses to the member's own requests to its RequestChannel; a
 * connection reset (SimDisconnect) to both, the channel first (the member's
 * requests on that connection fail) and then the RecordSource (the fetcher
 * fails its own: see RecordSource.receive); anything else to the
 * RecordSource. Returns whether the RecordSource took it (it may have
 * records now).
 */
export function deliverToConsumer(channel: RequestChannel, source: RecordSource, from: ActorId, message: Message, ctx: Context): boolean {
  if (RequestChannel.handles(message)) {
    channel.receive(from, message, ctx);
    return false;
  }
  if (message.type === "SimDisconnect") channel.disconnect(from, message.reason, message.connection, ctx);
  if (source.receive(from, message, ctx)) return true;
  if (message.type !== "SimDisconnect") ctx.log.debug("ignored an unexpected message", { type: message.type, from });
  return false;
}

/** Runs a timer of the channel's or the source's, telling the other one of any connection it closes. */
export function fireForConsumer(channel: RequestChannel, source: RecordSource, timer: string, ctx: Context): void {
  const closed = (connection: string): Message => ({ type: "SimDisconnect", reason: "closed", connection });
  const channelCtx = closingAlso(ctx, (peer, connection) => source.receive(peer, closed(connection), ctx));
  if (channel.fire(timer, channelCtx)) return;
  const sourceCtx = closingAlso(ctx, (peer, connection) => channel.disconnect(peer, "closed", connection, ctx));
  source.fire(timer, sourceCtx);
}

/** `ctx`, except that closing a connection also runs `alsoClosed` (at once, before the closer goes on). */
function closingAlso(ctx: Context, alsoClosed: (peer: ActorId, connection: string) => void): Context {
  const closeConnection = (peer: ActorId, connection = ""): void => {
    ctx.closeConnection(peer, connection);
    alsoClosed(peer, connection);
  };
  return new Proxy(ctx, {
    get(target, property) {
      if (property === "closeConnection") return closeConnection;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
