import { WireError } from "../wire-error.js";

const utf8 = new TextDecoder("utf-8");

/**
 * A bounds-checked cursor over bytes in Kafka's big-endian encodings. Every
 * read checks what is left first, so a hostile length can never make it
 * allocate more than the bytes it was given; each failure is a WireError
 * naming the offset.
 */
export class Reader {
  private readonly view: DataView;
  private position: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    private readonly end = bytes.length,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.position = start;
  }

  get offset(): number {
    return this.position;
  }

  get remaining(): number {
    return this.end - this.position;
  }

  /** Fails unless `count` more bytes are there. */
  need(count: number, what: string): void {
    if (count > this.end - this.position) {
      throw new WireError("truncated", `${what} needs ${count} bytes at offset ${this.position}, ${this.end - this.position} left`, {
        offset: this.position,
      });
    }
  }

  int8(): number {
    this.need(1, "INT8");
    return this.view.getInt8(this.position++);
  }

  uint8(): number {
    this.need(1, "UINT8");
    return this.bytes[this.position++]!;
  }

  int16(): number {
    this.need(2, "INT16");
    const value = this.view.getInt16(this.position);
    this.position += 2;
    return value;
  }

  uint16(): number {
    this.need(2, "UINT16");
    const value = this.view.getUint16(this.position);
    this.position += 2;
    return value;
  }

  int32(): number {
    this.need(4, "INT32");
    const value = this.view.getInt32(this.position);
    this.position += 4;
    return value;
  }

  uint32(): number {
    this.need(4, "UINT32");
    const value = this.view.getUint32(this.position);
    this.position += 4;
    return value;
  }

  int64(): bigint {
    this.need(8, "INT64");
    const value = this.view.getBigInt64(this.position);
    this.position += 8;
    return value;
  }

  float64(): number {
    this.need(8, "FLOAT64");
    const value = this.view.getFloat64(this.position);
    this.position += 8;
    return value;
  }

  /** Kafka's BOOLEAN: one byte, any non-zero value is true. */
  bool(): boolean {
    return this.uint8() !== 0;
  }

  /** An unsigned varint of at most 32 bits (Kafka's `ByteUtils.readUnsignedVarint`: at most 5 bytes). */
  uvarint(): number {
    const start = this.position;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.position >= this.end) throw new WireError("truncated", `varint at offset ${start} runs past the end`, { offset: start });
      const byte = this.bytes[this.position++]!;
      if (shift === 28 && byte > 0x0f)
        throw new WireError("malformed", `varint at offset ${start} does not fit in 32 bits`, { offset: start });
      value |= (byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value >>> 0;
    }
    throw new WireError("malformed", `varint at offset ${start} is longer than 5 bytes`, { offset: start });
  }

  /** A zigzag-encoded signed varint (32 bits). */
  varint(): number {
    const raw = this.uvarint();
    return (raw >>> 1) ^ -(raw & 1);
  }

  /** A zigzag-encoded signed varlong (64 bits, at most 10 bytes). */
  varlong(): bigint {
    const start = this.position;
    let raw = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.position >= this.end) throw new WireError("truncated", `varlong at offset ${start} runs past the end`, { offset: start });
      const byte = this.bytes[this.position++]!;
      if (shift === 63n && byte > 0x01)
        throw new WireError("malformed", `varlong at offset ${start} does not fit in 64 bits`, { offset: start });
      raw |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return (raw >> 1n) ^ -(raw & 1n);
    }
    throw new WireError("malformed", `varlong at offset ${start} is longer than 10 bytes`, { offset: start });
  }

  /** `count` bytes as a view into the input (no copy). */
  take(count: number, what: string): Uint8Array {
    if (count < 0)
      throw new WireError("invalid-length", `${what} length ${count} at offset ${this.position} is negative`, { offset: this.position });
    this.need(count, what);
    const out = this.bytes.subarray(this.position, this.position + count);
    this.position += count;
    return out;
  }

  /** `count` bytes decoded as UTF-8 (invalid sequences become U+FFFD, as Java's decoder does). */
  utf8(count: number, what: string): string {
    return count === 0 ? "" : utf8.decode(this.take(count, what));
  }

  skip(count: number, what: string): void {
    this.take(count, what);
  }

  /** A reader over the next `count` bytes; this reader moves past them. */
  slice(count: number, what: string): Reader {
    const start = this.position;
    this.take(count, what);
    return new Reader(this.bytes, start, start + count);
  }
}
