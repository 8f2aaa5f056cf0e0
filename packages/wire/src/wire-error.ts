/**
 * Why bytes were rejected, or why a value could not be written. A server
 * turns each kind into Kafka's reaction: most request-level kinds close the
 * connection (Kafka's SocketServer closes on an InvalidRequestException), an
 * ApiVersions request at an unknown version gets an UNSUPPORTED_VERSION
 * answer, record-level kinds become a per-partition error code.
 */
export type WireErrorKind =
  /** The bytes end before a field does. */
  | "truncated"
  /** A length, count or size field is negative where that is not allowed, or larger than what follows. */
  | "invalid-length"
  /** A frame's size prefix is above the configured maximum (socket.request.max.bytes). */
  | "frame-too-large"
  /** A value that the field's type cannot hold: a varint longer than its type, a null where none is allowed, bad UTF-8. */
  | "malformed"
  /** Bytes left over after a complete message. */
  | "trailing-bytes"
  /** The request header names an API key this endpoint does not know. */
  | "unknown-api-key"
  /** The request header names a version of a known API that this endpoint does not support. */
  | "unsupported-version"
  /** A record batch with a magic byte other than 2 (legacy message sets v0/v1 are not decoded). */
  | "unsupported-magic"
  /** A record batch compressed with a codec this package does not decode (snappy, lz4, zstd). */
  | "unsupported-compression"
  /** A record batch whose CRC-32C does not match its contents. */
  | "corrupt-batch"
  /** A value that cannot be encoded at the requested version (Kafka's UnsupportedVersionException on write). */
  | "unencodable";

export interface WireErrorContext {
  /** The request's API key, when the header got that far. */
  readonly apiKey?: number;
  readonly apiVersion?: number;
  readonly correlationId?: number;
  /** Byte offset in the frame (or batch) where the problem was found. */
  readonly offset?: number;
}

/**
 * The one error this package throws for bad input. Its message is a single
 * line naming what was wrong and where; nothing else escapes a decoder.
 */
export class WireError extends Error {
  override readonly name = "WireError";
  constructor(
    readonly kind: WireErrorKind,
    detail: string,
    readonly context: WireErrorContext = {},
  ) {
    super(`${kind}: ${detail}`);
  }

  /** The same error with more context (the header fields learned after the error was raised deeper down). */
  withContext(context: WireErrorContext): WireError {
    return new WireError(this.kind, this.message.slice(this.kind.length + 2), { ...this.context, ...context });
  }
}

/** Runs `decode` and converts anything it throws that is not a WireError (a bug) into a malformed-input WireError. */
export function asWireError(error: unknown): WireError {
  if (error instanceof WireError) return error;
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new WireError("malformed", `decoder failed: ${detail}`);
}
