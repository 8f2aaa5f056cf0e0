import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";

/**
 * The shared-memory transport of lockstep windows. Per shard: one
 * SharedArrayBuffer with a small control block and two byte regions (the
 * window going in, the reply coming out). The main thread copies a window's
 * msgpack buffer in, bumps IN_SEQ and wakes the worker, which sits in
 * Atomics.wait; the worker copies its reply out, bumps OUT_SEQ and wakes the
 * main thread. One buffer per shard per window each way, as with
 * postMessage, but a round trip costs ~15 us instead of ~70 us here
 * (measured: bench "lockstep-transport"). A window larger than a region
 * travels over the shard's data port instead (length -1), read on the other
 * side with receiveMessageOnPort, which works while the event loop is blocked.
 */
const IN_SEQ = 0;
const IN_LEN = 1;
const OUT_SEQ = 2;
const OUT_LEN = 3;
const STOP = 4;
/** The last IN_SEQ the worker consumed: a window posted before the worker started serving is not missed. */
const SERVED = 5;
const HEADER_BYTES = 32;

export const DEFAULT_REGION_BYTES = 64 * 1024;

export function createChannelBuffer(regionBytes = DEFAULT_REGION_BYTES): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + 2 * regionBytes);
}

function regions(buffer: SharedArrayBuffer): { control: Int32Array; inbox: Uint8Array; outbox: Uint8Array; capacity: number } {
  const capacity = (buffer.byteLength - HEADER_BYTES) / 2;
  return {
    control: new Int32Array(buffer, 0, HEADER_BYTES / 4),
    inbox: new Uint8Array(buffer, HEADER_BYTES, capacity),
    outbox: new Uint8Array(buffer, HEADER_BYTES + capacity, capacity),
    capacity,
  };
}

/** Copies a region's bytes (or takes the overflow message) into a buffer the reader owns. */
function take(region: Uint8Array, length: number, port: MessagePort): Uint8Array {
  if (length >= 0) return region.slice(0, length);
  const message = receiveMessageOnPort(port);
  if (message === undefined) throw new Error("window channel: overflow message missing");
  return message.message as Uint8Array;
}

function put(region: Uint8Array, bytes: Uint8Array, port: MessagePort): number {
  if (bytes.length <= region.length) {
    region.set(bytes);
    return bytes.length;
  }
  const owned = bytes.slice();
  port.postMessage(owned, [owned.buffer]);
  return -1;
}

/** The main thread's end of one shard's channel. */
export class WindowChannelMain {
  readonly buffer: SharedArrayBuffer;
  readonly #control: Int32Array;
  readonly #inbox: Uint8Array;
  readonly #outbox: Uint8Array;
  readonly #port: MessagePort;
  #seq = 0;

  constructor(buffer: SharedArrayBuffer, port: MessagePort) {
    this.buffer = buffer;
    const { control, inbox, outbox } = regions(buffer);
    this.#control = control;
    this.#inbox = inbox;
    this.#outbox = outbox;
    this.#port = port;
  }

  /** Hands the worker a window. */
  post(bytes: Uint8Array): void {
    Atomics.store(this.#control, IN_LEN, put(this.#inbox, bytes, this.#port));
    Atomics.store(this.#control, IN_SEQ, ++this.#seq);
    Atomics.notify(this.#control, IN_SEQ);
  }

  get replied(): boolean {
    return Atomics.load(this.#control, OUT_SEQ) === this.#seq;
  }

  /** Blocks (this thread) until the reply is there or `timeoutMs` passed; true when it is there. */
  wait(timeoutMs: number): boolean {
    for (;;) {
      const out = Atomics.load(this.#control, OUT_SEQ);
      if (out === this.#seq) return true;
      if (Atomics.wait(this.#control, OUT_SEQ, out, timeoutMs) === "timed-out") return Atomics.load(this.#control, OUT_SEQ) === this.#seq;
    }
  }

  /** The reply to the last window (after wait() returned true). */
  read(): Uint8Array {
    return take(this.#outbox, Atomics.load(this.#control, OUT_LEN), this.#port);
  }

  /** Ends the worker's serve loop: it returns to its event loop (and its control plane). */
  stop(): void {
    Atomics.store(this.#control, STOP, 1);
    Atomics.store(this.#control, IN_SEQ, ++this.#seq);
    Atomics.notify(this.#control, IN_SEQ);
  }
}

/**
 * The worker's end: serves windows until stopped, blocking the worker's
 * event loop in between (a lockstep worker has nothing else to do).
 */
export function serveWindows(buffer: SharedArrayBuffer, port: MessagePort, run: (window: Uint8Array) => Uint8Array): void {
  const { control, inbox, outbox } = regions(buffer);
  let seen = Atomics.load(control, SERVED);
  for (;;) {
    Atomics.wait(control, IN_SEQ, seen);
    const seq = Atomics.load(control, IN_SEQ);
    if (seq === seen) continue;
    seen = seq;
    Atomics.store(control, SERVED, seq);
    if (Atomics.load(control, STOP) === 1) {
      Atomics.store(control, STOP, 0);
      return;
    }
    const reply = run(take(inbox, Atomics.load(control, IN_LEN), port));
    Atomics.store(control, OUT_LEN, put(outbox, reply, port));
    Atomics.store(control, OUT_SEQ, seq);
    Atomics.notify(control, OUT_SEQ);
  }
}
