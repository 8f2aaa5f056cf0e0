import { join } from "node:path";
import type { ActorId, ActorLogger, JsonValue, Micros } from "@kcsim/protocol";
import type { DestinationStream, Logger } from "pino";
import { silentLogger } from "../../kernel/silent-logger.js";

export const LOG_LEVELS = ["silent", "error", "warn", "info", "debug", "trace"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where a host's actors log: a level, and a directory for one file per worker (null = stderr). */
export interface LogSpec {
  readonly level: LogLevel;
  readonly dir: string | null;
}

export const SILENT_LOGS: LogSpec = { level: "silent", dir: null };

/** The log file of one worker (or of the main thread), when logs go to a directory. */
export function logFileOf(spec: LogSpec, name: string): string | null {
  return spec.dir === null ? null : join(spec.dir, `${name}.log`);
}

/**
 * The pino loggers of one thread: one root with an explicit destination
 * (a file of its own, or stderr) and one child per actor carrying the
 * actor id. Every line carries the virtual time `t`; the deterministic
 * hosts write nothing else that varies between runs (`base: undefined`, no
 * wall clock), the realtime host adds the wall-clock `time`. `flush()` must
 * run before the thread exits: the destination is asynchronous.
 */
export class ActorLogs {
  readonly #root: Logger | null;
  readonly #destination: (DestinationStream & { flushSync(): void }) | null;

  private constructor(root: Logger | null, destination: (DestinationStream & { flushSync(): void }) | null) {
    this.#root = root;
    this.#destination = destination;
  }

  /** Silent logs load nothing: pino is imported only when something will be written (worker start time). */
  static async open(level: LogLevel, file: string | null, clock: () => Micros, wallClock: boolean): Promise<ActorLogs> {
    if (level === "silent") return new ActorLogs(null, null);
    const { pino } = await import("pino");
    const destination = pino.destination({ dest: file ?? 2, sync: false, mkdir: true });
    // base: null drops pid and hostname (pino's typings spell "no base" as null, not undefined).
    const root = pino(
      { level, base: null, timestamp: wallClock ? () => `,"time":${Date.now()},"t":${clock()}` : () => `,"t":${clock()}` },
      destination,
    );
    return new ActorLogs(root, destination);
  }

  loggerFor(actor: ActorId): ActorLogger {
    const root = this.#root;
    if (root === null) return silentLogger;
    const child = root.child({ actor });
    return {
      debug: (message: string, fields?: Record<string, JsonValue>) => child.debug(fields ?? {}, message),
      info: (message: string, fields?: Record<string, JsonValue>) => child.info(fields ?? {}, message),
      warn: (message: string, fields?: Record<string, JsonValue>) => child.warn(fields ?? {}, message),
      error: (message: string, fields?: Record<string, JsonValue>) => child.error(fields ?? {}, message),
    };
  }

  /** Writes out whatever is buffered (call before the thread exits or reports done). */
  flush(): void {
    if (this.#destination === null) return;
    try {
      this.#destination.flushSync();
    } catch {
      // Nothing buffered yet (the stream is still opening): nothing to lose.
    }
  }
}
