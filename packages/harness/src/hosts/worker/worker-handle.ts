import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { type Remote, releaseProxy, wrap } from "comlink";
import { comlinkEndpoint } from "./comlink-endpoint.js";

/** How a worker thread ended. `expected` = the host terminated it (end of run, a crash fault). */
export interface WorkerExit {
  readonly code: number;
  readonly error: string | null;
  readonly expected: boolean;
}

/** The old-generation heap a worker may use before it is ended for running out of memory. */
export const DEFAULT_WORKER_HEAP_MB = 1024;

/** A control call on a worker that died (or stopped answering) before replying. */
export class WorkerGoneError extends Error {
  override readonly name = "WorkerGoneError";
}

/** What every worker entry receives as workerData (plus its host's own fields). */
export interface WorkerPorts {
  readonly controlPort: MessagePort;
  readonly dataPort: MessagePort;
}

/** One line saying how a worker died, for the history and the console. */
export function describeExit(exit: WorkerExit): string {
  if (exit.error !== null) return `worker died: ${exit.error}`;
  return exit.expected ? "worker terminated" : `worker exited with code ${exit.code}`;
}

/**
 * One worker thread of a worker host: started from its built entry module
 * with `execArgv: []` (workers must not inherit vitest's or tsx's flags),
 * with two ports of its own: a data port (msgpack batches) and a control
 * port (comlink, typed by the host's control API). Its exit is always
 * observed: a control call on a dead worker rejects instead of hanging,
 * and `onExit` tells the host.
 */
export class WorkerHandle<Control> {
  readonly name: string;
  readonly worker: Worker;
  readonly data: MessagePort;
  readonly control: Remote<Control>;
  /** Resolves (never rejects) when the thread has exited. */
  readonly exited: Promise<WorkerExit>;
  /** Milliseconds from spawn to the worker's `online` event (NaN until then). */
  startMs = Number.NaN;
  exit: WorkerExit | null = null;
  #expected = false;
  #error: string | null = null;
  readonly #controlPort: MessagePort;

  constructor(
    entry: string,
    name: string,
    data: Record<string, unknown>,
    onExit: (handle: WorkerHandle<Control>, exit: WorkerExit) => void,
    heapMb: number = DEFAULT_WORKER_HEAP_MB,
  ) {
    this.name = name;
    const control = new MessageChannel();
    const channel = new MessageChannel();
    const started = performance.now();
    const ports: WorkerPorts = { controlPort: control.port2, dataPort: channel.port2 };
    this.worker = new Worker(entry, {
      execArgv: [],
      name,
      workerData: { ...data, ...ports },
      transferList: [control.port2, channel.port2],
      // A runaway actor then dies alone (ERR_WORKER_OUT_OF_MEMORY), reported like any dead worker.
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    this.#controlPort = control.port1;
    this.data = channel.port1;
    this.control = wrap<Control>(comlinkEndpoint(control.port1));
    this.worker.once("online", () => {
      this.startMs = performance.now() - started;
    });
    this.worker.on("error", (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      this.#error ??= error instanceof Error ? `${code ?? error.name}: ${error.message}` : String(error);
    });
    this.exited = new Promise((resolve) => {
      this.worker.once("exit", (code) => {
        const exit: WorkerExit = { code, error: this.#error, expected: this.#expected };
        this.exit = exit;
        this.#controlPort.close();
        this.data.close();
        onExit(this, exit);
        resolve(exit);
      });
    });
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /**
   * A control call that cannot hang: it rejects with WorkerGoneError if the
   * worker exits first or does not answer within `timeoutMs`.
   */
  async call<T>(invoke: (control: Remote<Control>) => Promise<T>, timeoutMs = 30_000): Promise<T> {
    if (this.exit !== null) throw new WorkerGoneError(`${this.name}: ${describeExit(this.exit)}`);
    let timer: NodeJS.Timeout | undefined;
    const gone = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WorkerGoneError(`${this.name}: no answer within ${timeoutMs} ms`)), timeoutMs);
      void this.exited.then((exit) => reject(new WorkerGoneError(`${this.name}: ${describeExit(exit)}`)));
    });
    try {
      return await Promise.race([invoke(this.control), gone]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends a worker that misbehaves (it stopped answering): an unexpected exit, reported with `reason`. */
  kill(reason: string): void {
    if (this.exit !== null) return;
    this.#error ??= reason;
    void this.worker.terminate();
  }

  /** Ends the thread (an expected exit); safe to call twice or on a dead worker. */
  terminate(): Promise<WorkerExit> {
    if (this.exit === null && !this.#expected) {
      this.#expected = true;
      // Release the comlink proxy while the other side can still answer; do not wait for it.
      try {
        void Promise.resolve(this.control[releaseProxy]()).catch(() => {});
      } catch {
        // Already released.
      }
      void this.worker.terminate();
    }
    return this.exited;
  }
}
