import type { Message, RequestMessage, ResponseMessage, SimDisconnect } from "./messages/index.js";

/**
 * Which messages are Kafka RPCs, as a connection sees them: a request
 * carries Kafka's request header (an api version), a response carries only
 * the correlation id of the request it answers. Everything else (SimPing,
 * the kernel's connection events) is not an RPC.
 */
export function isRequest(message: Message): message is RequestMessage {
  return "apiVersion" in message;
}

export function isResponse(message: Message): message is ResponseMessage {
  return "correlationId" in message && !("apiVersion" in message);
}

/**
 * Whether the server answers this request. Produce with acks=0 is the one
 * request Kafka never answers (the broker only unmutes the connection,
 * `KafkaApis.handleProduceRequest` / `sendNoOpResponseExemptThrottle`), so
 * the client keeps nothing in flight for it.
 */
export function expectsResponse(request: RequestMessage): boolean {
  return !(request.type === "ProduceRequest" && request.acks === 0);
}

/**
 * Whether a SimDisconnect concerns the client connection `connection`
 * ("" = a client's ordinary connection to a node). A datagram-mode reset
 * names "*": every connection to its sender.
 */
export function disconnects(message: SimDisconnect, connection: string): boolean {
  return message.connection === "*" || message.connection === connection;
}
