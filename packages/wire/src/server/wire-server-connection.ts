import type { ApiVersionEntry } from "../apis/api-versions.js";
import type { ApiName, WireResponseOf } from "../apis/index.js";
import { type DecodedRequest, decodeRequest, encodeResponse, type VersionTable, type WireRequest } from "../codec.js";
import { DEFAULT_MAX_FRAME_BYTES, FrameSplitter } from "../framing/frame-splitter.js";
import { asWireError, WireError } from "../wire-error.js";
import { answerApiVersions, SUPPORTED_API_VERSIONS } from "./api-versions-answer.js";

/** What a WireServerConnection asks of the transport and of the server behind it. */
export interface WireServerConnectionHandler {
  /** Bytes to write to the client, in order. */
  send(bytes: Uint8Array): void;
  /** A request for the server; the connection reads nothing more until `respond` (or `noResponse`) answers it. */
  request(request: WireRequest): void;
  /**
   * The connection must be closed, as Kafka's SocketServer closes it: a frame
   * of a bad size, a request that does not decode, an unknown API key or an
   * unsupported version (other than ApiVersions', which is answered), or an
   * acks=0 Produce that failed. Nothing is read or sent after this.
   */
  close(reason: WireError): void;
}

export interface WireServerConnectionOptions {
  /** Largest request frame accepted (socket.request.max.bytes); default 104857600. */
  readonly maxFrameBytes?: number;
  /** What ApiVersions advertises and what is accepted; default everything this package supports. */
  readonly apiVersions?: readonly ApiVersionEntry[];
}

type Queued = { readonly frame: Uint8Array } | { readonly error: WireError };

/**
 * The server side of one Kafka connection, with no socket in it: bytes in,
 * decoded requests out, responses in, bytes out. It keeps Kafka's rule of
 * one request at a time per connection (SocketServer mutes a channel while
 * its request is being handled and unmutes it once the response is sent):
 * frames that arrive meanwhile wait, and are decoded in order afterwards.
 * It answers ApiVersions itself. `receive` never throws.
 */
export class WireServerConnection {
  private readonly splitter: FrameSplitter;
  private readonly apiVersions: readonly ApiVersionEntry[];
  private readonly versionTable: VersionTable;
  private readonly queue: Queued[] = [];
  private current: WireRequest | undefined;
  private isClosed = false;
  private pumping = false;

  constructor(
    private readonly handler: WireServerConnectionHandler,
    options: WireServerConnectionOptions = {},
  ) {
    this.splitter = new FrameSplitter(options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
    this.apiVersions = options.apiVersions ?? SUPPORTED_API_VERSIONS;
    this.versionTable = new Map(this.apiVersions.map((entry) => [entry.apiKey, entry]));
  }

  /** The request being handled (the connection is muted while there is one). */
  get inFlight(): WireRequest | undefined {
    return this.current;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Frames received and waiting behind the in-flight request. */
  get queuedFrames(): number {
    return this.queue.length;
  }

  /** Bytes from the client. */
  receive(chunk: Uint8Array): void {
    if (this.isClosed) return;
    try {
      for (const frame of this.splitter.push(chunk)) this.queue.push({ frame });
    } catch (error) {
      this.queue.push({ error: asWireError(error) });
    }
    this.pump();
  }

  /**
   * Answers the in-flight request. Encoding errors (a response the request's
   * version cannot carry) throw a WireError and leave the request in flight.
   * An acks=0 Produce gets no bytes, as in Kafka: if any partition failed the
   * connection is closed instead, so the client learns of it.
   */
  respond<N extends ApiName>(api: N, body: WireResponseOf<N>): void {
    const request = this.takeInFlight(api);
    if (request.api === "Produce" && request.body.acks === 0) {
      this.current = undefined;
      const failed = (body as WireResponseOf<"Produce">).responses.some((topic) => topic.partitionResponses.some((p) => p.errorCode !== 0));
      if (failed) this.shut(new WireError("malformed", "an acks=0 Produce failed: Kafka closes the connection so the client notices"));
      else this.pump();
      return;
    }
    const bytes = encodeResponse(api, request.header.apiVersion, request.header.correlationId, body);
    this.current = undefined;
    this.handler.send(bytes);
    this.pump();
  }

  /** Completes the in-flight request without a response (what Kafka does for an acks=0 Produce). */
  noResponse(): void {
    if (this.current === undefined) throw new WireError("unencodable", "no request is in flight");
    this.current = undefined;
    this.pump();
  }

  /** Closes the connection from the server side (e.g. the transport broke). */
  close(reason: WireError): void {
    this.shut(reason);
  }

  private takeInFlight(api: ApiName): WireRequest {
    const request = this.current;
    if (request === undefined) throw new WireError("unencodable", `a ${api} response with no request in flight`);
    if (request.api !== api) throw new WireError("unencodable", `a ${api} response to a ${request.api} request`);
    return request;
  }

  private shut(reason: WireError): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.current = undefined;
    this.queue.length = 0;
    this.handler.close(reason);
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (!this.isClosed && this.current === undefined) {
        const next = this.queue.shift();
        if (next === undefined) return;
        if ("error" in next) {
          this.shut(next.error);
          return;
        }
        let request: DecodedRequest;
        try {
          request = decodeRequest(next.frame, this.versionTable);
        } catch (error) {
          this.shut(asWireError(error));
          return;
        }
        if (request.api === "ApiVersions") {
          const answer = answerApiVersions(request, this.apiVersions);
          this.handler.send(encodeResponse("ApiVersions", answer.version, request.header.correlationId, answer.body));
          continue;
        }
        this.current = request;
        this.handler.request(request);
      }
    } finally {
      this.pumping = false;
    }
  }
}
