import { WireError } from "../wire-error.js";

/** Kafka's socket.request.max.bytes default: the largest request frame a broker reads. */
export const DEFAULT_MAX_FRAME_BYTES = 104_857_600;

const SIZE_PREFIX = 4;

/**
 * Cuts a TCP byte stream into Kafka frames (a 4-byte big-endian size, then
 * that many bytes), across partial reads and with several frames per chunk.
 * A negative size or one above `maxFrameBytes` throws a WireError before
 * anything is allocated for it (Kafka's NetworkReceive throws
 * InvalidReceiveException and the connection is closed); after that the
 * splitter stays failed. Chunks handed in must not be changed afterwards:
 * a frame that lies within one chunk is a view into it.
 */
export class FrameSplitter {
  private readonly pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private failure: WireError | undefined;

  constructor(readonly maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {}

  /** Bytes received but not yet handed out as frames. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Takes a chunk of the stream; returns the frame payloads (without size prefix) it completed, in order. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.failure) throw this.failure;
    if (chunk.length > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
    }
    const frames: Uint8Array[] = [];
    for (;;) {
      if (this.pendingBytes < SIZE_PREFIX) return frames;
      const size = this.peekSize();
      if (size < 0 || size > this.maxFrameBytes) {
        this.failure =
          size < 0
            ? new WireError("invalid-length", `frame size ${size} is negative`)
            : new WireError("frame-too-large", `frame size ${size} is above the ${this.maxFrameBytes}-byte maximum`);
        throw this.failure;
      }
      if (this.pendingBytes < SIZE_PREFIX + size) return frames;
      this.consume(SIZE_PREFIX);
      frames.push(this.consume(size));
    }
  }

  private peekSize(): number {
    const first = this.pending[0]!;
    if (first.length >= SIZE_PREFIX) return new DataView(first.buffer, first.byteOffset, first.length).getInt32(0);
    const head = this.copyOut(SIZE_PREFIX, false);
    return new DataView(head.buffer).getInt32(0);
  }

  private consume(count: number): Uint8Array {
    const first = this.pending[0];
    if (first !== undefined && first.length >= count) {
      // Fast path: the bytes lie in one chunk.
      const out = first.subarray(0, count);
      if (first.length === count) this.pending.shift();
      else this.pending[0] = first.subarray(count);
      this.pendingBytes -= count;
      return out;
    }
    return this.copyOut(count, true);
  }

  /** Copies the first `count` buffered bytes into a new array, removing them when `remove` is set. */
  private copyOut(count: number, remove: boolean): Uint8Array {
    const out = new Uint8Array(count);
    let filled = 0;
    let index = 0;
    while (filled < count) {
      const chunk = this.pending[index]!;
      const take = Math.min(chunk.length, count - filled);
      out.set(chunk.subarray(0, take), filled);
      filled += take;
      if (remove) {
        if (take === chunk.length) this.pending.shift();
        else this.pending[0] = chunk.subarray(take);
      } else {
        index++;
      }
    }
    if (remove) this.pendingBytes -= count;
    return out;
  }
}

/** Prefixes a payload with its 4-byte size. */
export function frame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(SIZE_PREFIX + payload.length);
  new DataView(out.buffer).setInt32(0, payload.length);
  out.set(payload, SIZE_PREFIX);
  return out;
}
