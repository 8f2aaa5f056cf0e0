import { EventEmitter } from "node:events";
import type { WireClientGateway } from "../wire-clients/wire-client-gateway.js";

/**
 * The socket KafkaJS gets from its `socketFactory` inside the simulation:
 * what KafkaJS writes goes to the actor's WireClientGateway as the bytes of
 * one TCP connection, and what the gateway answers comes back as 'data'.
 * It "connects" at once (the simulated connection opens on the first
 * request, and a partition or a dead broker shows as that request's
 * connection failing: 'error'). Events are emitted in a microtask, never
 * inside the call that caused them, as a real socket never calls back
 * synchronously from write().
 */
export class SimSocket extends EventEmitter {
  readonly #gateway: WireClientGateway;
  readonly #id: number;
  #open = true;

  constructor(gateway: WireClientGateway, id: number, nodeId: number, onConnect: () => void) {
    super();
    this.#gateway = gateway;
    this.#id = id;
    gateway.open(id, nodeId, { write: (bytes) => this.#fromServer(bytes), close: (reason) => this.#closedByServer(reason) });
    queueMicrotask(() => {
      if (this.#open) onConnect();
    });
  }

  // ---- what KafkaJS calls (a subset of net.Socket) ----

  write(data: Uint8Array | string, encoding?: unknown, callback?: unknown): boolean {
    if (!this.#open) return false;
    const bytes = typeof data === "string" ? Buffer.from(data, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8") : data;
    this.#gateway.data(this.#id, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength).slice());
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  }

  end(): this {
    this.#closeByClient();
    return this;
  }

  destroy(): this {
    this.#closeByClient();
    return this;
  }

  setKeepAlive(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  // ---- the server side (the gateway's SocketSink) ----

  /** Bytes from the server side (a copy: the gateway may reuse its buffers). */
  #fromServer(bytes: Uint8Array): void {
    const copy = Buffer.from(bytes);
    queueMicrotask(() => {
      if (this.#open) this.emit("data", copy);
    });
  }

  #closedByServer(reason: string): void {
    if (!this.#open) return;
    this.#open = false;
    queueMicrotask(() => {
      const error = Object.assign(new Error(`read ECONNRESET (${reason})`), { code: "ECONNRESET" });
      this.emit("error", error);
      this.emit("close", true);
    });
  }

  #closeByClient(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#gateway.clientClosed(this.#id);
  }
}
