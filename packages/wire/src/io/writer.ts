import { WireError } from "../wire-error.js";

const INITIAL_CAPACITY = 256;

/**
 * A growable big-endian byte buffer for Kafka's encodings. `finish()`
 * returns an exact-size copy, so a writer can be reused.
 */
export class Writer {
  private buffer: Buffer;
  private view: DataView;
  private position = 0;

  constructor(capacity = INITIAL_CAPACITY) {
    this.buffer = Buffer.allocUnsafe(capacity);
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength);
  }

  get length(): number {
    return this.position;
  }

  private ensure(count: number): void {
    const needed = this.position + count;
    if (needed <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.buffer.copy(grown, 0, 0, this.position);
    this.buffer = grown;
    this.view = new DataView(grown.buffer, grown.byteOffset, grown.byteLength);
  }

  int8(value: number): this {
    this.ensure(1);
    this.view.setInt8(this.position++, value);
    return this;
  }

  uint8(value: number): this {
    this.ensure(1);
    this.buffer[this.position++] = value & 0xff;
    return this;
  }

  int16(value: number): this {
    this.ensure(2);
    this.view.setInt16(this.position, value);
    this.position += 2;
    return this;
  }

  uint16(value: number): this {
    this.ensure(2);
    this.view.setUint16(this.position, value);
    this.position += 2;
    return this;
  }

  int32(value: number): this {
    this.ensure(4);
    this.view.setInt32(this.position, value);
    this.position += 4;
    return this;
  }

  uint32(value: number): this {
    this.ensure(4);
    this.view.setUint32(this.position, value >>> 0);
    this.position += 4;
    return this;
  }

  int64(value: bigint): this {
    this.ensure(8);
    this.view.setBigInt64(this.position, BigInt.asIntN(64, value));
    this.position += 8;
    return this;
  }

  float64(value: number): this {
    this.ensure(8);
    this.view.setFloat64(this.position, value);
    this.position += 8;
    return this;
  }

  bool(value: boolean): this {
    return this.uint8(value ? 1 : 0);
  }

  uvarint(value: number): this {
    let v = value >>> 0;
    this.ensure(5);
    while (v >= 0x80) {
      this.buffer[this.position++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[this.position++] = v;
    return this;
  }

  varint(value: number): this {
    return this.uvarint((value << 1) ^ (value >> 31));
  }

  varlong(value: bigint): this {
    let v = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
    this.ensure(10);
    while (v >= 0x80n) {
      this.buffer[this.position++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buffer[this.position++] = Number(v);
    return this;
  }

  bytes(value: Uint8Array): this {
    this.ensure(value.length);
    this.buffer.set(value, this.position);
    this.position += value.length;
    return this;
  }

  /** Writes a UTF-8 string with a length prefix written by `prefix` (given the byte length). */
  utf8(value: string, prefix: (byteLength: number) => void): this {
    const byteLength = Buffer.byteLength(value, "utf8");
    prefix(byteLength);
    this.ensure(byteLength);
    this.buffer.write(value, this.position, byteLength, "utf8");
    this.position += byteLength;
    return this;
  }

  /** Overwrites an INT32 written earlier (a size prefix known only afterwards). */
  patchInt32(at: number, value: number): void {
    if (at < 0 || at + 4 > this.position)
      throw new WireError("unencodable", `patch at ${at} is outside the ${this.position} bytes written`);
    this.view.setInt32(at, value);
  }

  /** The bytes written since `from`, as a view (valid until the next write). */
  viewSince(from: number): Uint8Array {
    return this.buffer.subarray(from, this.position);
  }

  finish(): Uint8Array {
    return new Uint8Array(this.buffer.subarray(0, this.position));
  }
}
