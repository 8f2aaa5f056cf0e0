import type { Actor, ActorId, Context, ControlCommand, JsonValue, Message } from "@kcsim/protocol";

/** A running consumer process: what it does once started. */
export interface ConsumerProcess {
  receive(from: ActorId, message: Message, ctx: Context): void;
  fire(timer: string, ctx: Context): void;
  control(command: ControlCommand, ctx: Context): void;
  /** See Actor.clockStepped: a process without a thread that reads the clock on a period leaves it out. */
  clockStepped?(ctx: Context): void;
  snapshot(): JsonValue;
}

/**
 * A consumer as an actor. Its volatile state is the whole consumer: each
 * start (the first, and each restart on a fresh instance) makes a new
 * process, which is what a restarted JVM is. Before it starts, the actor
 * ignores everything and its snapshot says so.
 */
export class ConsumerProcessActor<P extends ConsumerProcess> implements Actor {
  readonly #startProcess: (ctx: Context) => P;
  #process: P | null = null;

  constructor(startProcess: (ctx: Context) => P) {
    this.#startProcess = startProcess;
  }

  start(ctx: Context): void {
    this.#process = this.#startProcess(ctx);
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#process?.receive(from, message, ctx);
  }

  fire(timer: string, ctx: Context): void {
    this.#process?.fire(timer, ctx);
  }

  control(command: ControlCommand, ctx: Context): void {
    this.#process?.control(command, ctx);
  }

  clockStepped(ctx: Context): void {
    this.#process?.clockStepped?.(ctx);
  }

  snapshot(): JsonValue {
    return this.#process?.snapshot() ?? { started: false };
  }
}
