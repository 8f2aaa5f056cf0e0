import type { RecordSource } from "@kcsim/fetch";
import type { ActorId, Context, Message } from "@kcsim/protocol";
import { RequestChannel } from "./request-channel.js";

/**
 * Hands a message that reached the consumer to whoever it is for:
 * responses to the member's own requests to its RequestChannel; a
 * connection reset (SimDisconnect) to both, the channel first (the member's
 * requests to that peer fail) and then the RecordSource (the fetcher fails
 * its own: see RecordSource.receive); anything else to the RecordSource.
 * Returns whether the RecordSource took it (it may have records now).
 */
export function deliverToConsumer(channel: RequestChannel, source: RecordSource, from: ActorId, message: Message, ctx: Context): boolean {
  if (RequestChannel.handles(message)) {
    channel.receive(from, message, ctx);
    return false;
  }
  if (message.type === "SimDisconnect") channel.disconnect(from, message.reason, ctx);
  if (source.receive(from, message, ctx)) return true;
  if (message.type !== "SimDisconnect") ctx.log.debug("ignored an unexpected message", { type: message.type, from });
  return false;
}
