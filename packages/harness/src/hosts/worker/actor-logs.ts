import { mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import type { ActorId, ActorLogger, JsonValue, Micros } from "@kcsim/protocol";
import type { DestinationStream, Logger } from "pino";
import { silentLogger } from "../../kernel/silent-logger.js";
import { importModule } from "../../run/import-module.js";

export const LOG_LEVELS = ["silent", "error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where a host's actors log: a level, and a directory for one file per actor (null = stderr). */
export interface LogSpec {
  readonly level: LogLevel;
  readonly dir: string | null;
}

export const SILENT_LOGS: LogSpec = { level: "silent", dir: null };

/** The log file of one actor, when logs go to a directory: `<dir>/<actor>.log`. */
export function actorLogFile(dir: string, actor: ActorId): string {
  return join(dir, `${actor}.log`);
}

type Destination = DestinationStream & { flushSync(): void };
type Pino = typeof import("pino").pino;

interface Root {
  readonly logger: Logger;
  readonly destination: Destination;
}

/**
 * The pino loggers of one thread: one child per actor carrying the actor
 * id, each writing to a file of its own (`<dir>/<actor>.log`, appended to,
 * so an actor restarted in another worker goes on in the same file) or,
 * without a directory, all to stderr. Every line carries the virtual time
 * `t`; the deterministic hosts write nothing else that varies between runs
 * (`base: null`, no wall clock), the realtime host adds the wall-clock
 * `time`. `flush()` must run before the thread exits: destinations are
 * asynchronous.
 */
export class ActorLogs {
  readonly #pino: Pino | null;
  readonly #level: LogLevel;
  readonly #dir: string | null;
  readonly #timestamp: () => string;
  readonly #roots = new Map<string, Root>();

  private constructor(pino: Pino | null, level: LogLevel, dir: string | null, timestamp: () => string) {
    this.#pino = pino;
    this.#level = level;
    this.#dir = dir;
    this.#timestamp = timestamp;
  }

  /** Silent logs load nothing: pino is imported only when something will be written (worker start time). */
  static async open(level: LogLevel, dir: string | null, clock: () => Micros, wallClock: boolean): Promise<ActorLogs> {
    const timestamp = wallClock ? () => `,"time":${Date.now()},"t":${clock()}` : () => `,"t":${clock()}`;
    if (level === "silent") return new ActorLogs(null, level, dir, timestamp);
    const { pino } = (await importModule("pino")) as typeof import("pino");
    return new ActorLogs(pino, level, dir, timestamp);
  }

  loggerFor(actor: ActorId): ActorLogger {
    const root = this.#rootFor(actor);
    if (root === null) return silentLogger;
    const child = root.logger.child({ actor });
    return {
      debug: (message: string, fields?: Record<string, JsonValue>) => child.debug(fields ?? {}, message),
      info: (message: string, fields?: Record<string, JsonValue>) => child.info(fields ?? {}, message),
      warn: (message: string, fields?: Record<string, JsonValue>) => child.warn(fields ?? {}, message),
      error: (message: string, fields?: Record<string, JsonValue>) => child.error(fields ?? {}, message),
    };
  }

  /** Writes out whatever is buffered (call before the thread exits or reports done). */
  flush(): void {
    for (const { destination } of this.#roots.values()) {
      try {
        destination.flushSync();
      } catch {
        // Nothing buffered yet (the stream is still opening): nothing to lose.
      }
    }
  }

  /** The root an actor's logger hangs off: a file of its own, or the thread's stderr root. */
  #rootFor(actor: ActorId): Root | null {
    const pino = this.#pino;
    if (pino === null) return null;
    const key = this.#dir === null ? "" : actor;
    let root = this.#roots.get(key);
    if (root === undefined) {
      // The file is opened here, synchronously: a lockstep worker blocks in Atomics.wait between windows, so
      // an asynchronous open could still be pending when the host flushes and terminates it.
      let dest = 2;
      if (this.#dir !== null) {
        mkdirSync(this.#dir, { recursive: true });
        dest = openSync(actorLogFile(this.#dir, actor), "a");
      }
      const destination = pino.destination({ dest, sync: false });
      // base: null drops pid and hostname (pino's typings spell "no base" as null, not undefined).
      root = { logger: pino({ level: this.#level, base: null, timestamp: this.#timestamp }, destination), destination };
      this.#roots.set(key, root);
    }
    return root;
  }
}
