/**
 * Which real client a connection belongs to: the client.id in the request
 * header of its first request (Kafka's request header v1/v2 start with
 * api key, api version, correlation id, then the client id as an INT16
 * length-prefixed string, null at -1). kcsim names the client's actor after
 * it, so faults can be scoped to a client (`client:billing*`); clients
 * without a readable id share `client:_`.
 */
export const CLIENT_ACTOR_PREFIX = "client:";

/**
 * The client id in a connection's first bytes (the first request's header):
 * undefined while more bytes must arrive, null when the frame has no
 * readable client id (a null id, or bytes that are no request header).
 */
export function clientIdOfFirstFrame(bytes: Uint8Array): string | null | undefined {
  if (bytes.length < 4) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = view.getInt32(0);
  // A frame too short to hold a header, or of an impossible size: no client id (the server closes it).
  if (size < 10) return null;
  if (bytes.length < 4 + 10) return undefined;
  const length = view.getInt16(12);
  if (length < 0) return null;
  if (10 + length > size) return null;
  if (bytes.length < 14 + length) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(14, 14 + length));
  } catch {
    return null;
  }
}

/** The actor id of a client: its client.id with characters outside [A-Za-z0-9._-] as "_" (empty or none: "_"). */
export function clientActorId(clientId: string | null): string {
  const safe = (clientId ?? "").replace(/[^A-Za-z0-9._-]/g, "_");
  return `${CLIENT_ACTOR_PREFIX}${safe === "" ? "_" : safe}`;
}
