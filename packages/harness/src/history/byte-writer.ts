const utf8 = new TextEncoder();

/**
 * A growable byte buffer with the primitives of the history's binary
 * format: bytes, unsigned varints (7 bits a byte, low first, up to 2^53),
 * float64 (little-endian) and length-prefixed UTF-8 strings.
 */
export class ByteWriter {
  bytes: Uint8Array;
  pos = 0;
  #floats = new Float64Array(1);
  #floatBytes = new Uint8Array(this.#floats.buffer);

  constructor(capacity = 64 * 1024) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.pos + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.bytes.subarray(0, this.pos));
    this.bytes = bigger;
  }

  u8(value: number): void {
    if (this.pos >= this.bytes.length) this.ensure(1);
    this.bytes[this.pos++] = value;
  }

  /** An unsigned integer (a safe integer >= 0) as a varint. */
  uint(value: number): void {
    this.ensure(8);
    const bytes = this.bytes;
    let n = value;
    if (n < 0x80) {
      bytes[this.pos++] = n;
      return;
    }
    if (n < 0x80000000) {
      while (n >= 0x80) {
        bytes[this.pos++] = (n & 0x7f) | 0x80;
        n >>>= 7;
      }
      bytes[this.pos++] = n;
      return;
    }
    while (n >= 0x80) {
      bytes[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    bytes[this.pos++] = n;
  }

  /** A signed integer of magnitude up to 2^52, zigzag-encoded (small magnitudes take one byte whatever their sign). */
  int(value: number): void {
    this.uint(value < 0 ? -2 * value - 1 : 2 * value);
  }

  float64(value: number): void {
    this.ensure(8);
    this.#floats[0] = value;
    this.bytes.set(this.#floatBytes, this.pos);
    this.pos += 8;
  }

  /** A string: its UTF-8 length as a varint, then its bytes (ASCII is copied without an encoder). */
  string(value: string): void {
    const length = value.length;
    if (length < 0x80) {
      this.ensure(1 + length);
      const bytes = this.bytes;
      const start = this.pos;
      bytes[start] = length;
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code >= 0x80) break;
        bytes[start + 1 + i] = code;
      }
      if (i === length) {
        this.pos = start + 1 + length;
        return;
      }
    }
    const size = Buffer.byteLength(value, "utf8");
    this.uint(size);
    this.ensure(size);
    utf8.encodeInto(value, this.bytes.subarray(this.pos, this.pos + size));
    this.pos += size;
  }

  /** The bytes written so far, copied to an exact-size array; the writer starts over. */
  take(): Uint8Array {
    const out = this.bytes.slice(0, this.pos);
    this.pos = 0;
    return out;
  }
}
