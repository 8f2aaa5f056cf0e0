import { Redis } from "ioredis";

/** Where a queue lives: the URL to connect to, and the same URL with any password hidden, to print. */
export interface QueueAddress {
  readonly url: string;
  readonly shown: string;
}

/** Reconnect delays: 0.25 s, doubling, at most 10 s; never giving up (a hunt outlives a Redis restart). */
export const MAX_BACKOFF_MS = 10_000;
const backoff = (attempt: number): number => Math.min(250 * 2 ** Math.min(attempt - 1, 10), MAX_BACKOFF_MS);

/**
 * Options for every Redis connection of a hunt or worker (BullMQ's own
 * included): reconnect with backoff for ever, and let commands wait for the
 * connection instead of failing (maxRetriesPerRequest null), so a Redis that
 * goes away for a while delays results but never drops them.
 */
export interface ConnectionOptions {
  readonly url: string;
  readonly maxRetriesPerRequest: null;
  readonly retryStrategy: (attempt: number) => number;
}

export function connectionOptions(address: QueueAddress): ConnectionOptions {
  return { url: address.url, maxRetriesPerRequest: null, retryStrategy: backoff };
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** An error that only says the connection is down (ioredis reconnects by itself), as opposed to one worth reporting. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (
    (typeof code === "string" && NETWORK_CODES.has(code)) ||
    /Connection is closed|connect ETIMEDOUT|ECONNREFUSED|ECONNRESET/.test(error.message)
  );
}

/**
 * The line to print for an error a BullMQ object reports, or null for a
 * dropped connection (the link's own client reports outages). A job a worker
 * finishes after losing it (its lock ran out and another worker took it, or
 * Redis restarted without it) is said in words: its result is not lost, the
 * job's current run reports it.
 */
export function bullmqErrorLine(error: Error): string | null {
  if (isConnectionError(error)) return null;
  const first = error.message.split("\n")[0] ?? "";
  const gone = /^Missing key for job (\S+)\./.exec(first);
  if (gone !== null)
    return `job ${gone[1]}: Redis no longer holds it (it restarted without its data); the hunt adds it again and that run reports it`;
  const taken = /^(?:Missing lock|Lock mismatch) for job (\S+)\.|^Job (\S+) is not in the active state/.exec(first);
  if (taken !== null)
    return `job ${taken[1] ?? taken[2]}: this worker lost its lock on it (it stalled and went to another worker, or Redis restarted); the run that holds it now reports it`;
  return `queue: ${first}`;
}

/**
 * A hunt's or a worker's own connection to Redis (for hunt definitions and
 * stop flags), which also watches the link: the first error of an outage
 * prints one line, the reconnection another, and nothing in between (no
 * stack trace, no line per retry). Every reconnection calls `onReconnect`
 * (a Redis that restarted may have lost its data). Errors BullMQ reports go
 * through `bullmqError`: connection errors are left to this link's own
 * client (the same outage), others get one line.
 */
export class RedisLink {
  readonly client: Redis;
  readonly address: QueueAddress;
  readonly #say: (line: string) => void;
  #onReconnect: () => void = () => {};
  #down = false;
  #connected = false;
  #lastError = "";

  constructor(address: QueueAddress, say: (line: string) => void) {
    this.address = address;
    this.#say = say;
    const { url, ...options } = connectionOptions(address);
    this.client = new Redis(url, options);
    this.client.on("error", (error: Error) => this.#outage(error));
    this.client.on("ready", () => {
      if (this.#down) this.#say(`Redis at ${address.shown} reachable again`);
      this.#down = false;
      if (this.#connected) this.#onReconnect();
      this.#connected = true;
    });
  }

  /** What to do on every reconnection (replacing what was set before). */
  onReconnect(callback: () => void): void {
    this.#onReconnect = callback;
  }

  /** For BullMQ objects' "error" events. */
  bullmqError(error: Error): void {
    const line = bullmqErrorLine(error);
    // BullMQ may report one loss from two places (the lock renewal and the completion): one line is enough.
    if (line !== null && line !== this.#lastError) this.#say(line);
    if (line !== null) this.#lastError = line;
  }

  #outage(error: Error): void {
    if (this.#down) return;
    this.#down = true;
    this.#say(
      `Redis at ${this.address.shown} unreachable (${error.message.split("\n")[0]}); retrying with backoff (up to ${MAX_BACKOFF_MS / 1000} s apart)`,
    );
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
