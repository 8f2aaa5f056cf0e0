/*
 * The few Kafka `protocol.types` encodings the sticky assignors' user data
 * uses (big-endian): INT32, STRING (int16 length + UTF-8) and ARRAY (int32
 * count + elements). Reads throw on anything Kafka's `Schema.read` rejects.
 */

export class KafkaStructWriter {
  private readonly bytes: number[] = [];

  int16(value: number): this {
    this.bytes.push((value >> 8) & 0xff, value & 0xff);
    return this;
  }

  int32(value: number): this {
    this.bytes.push((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
    return this;
  }

  string(value: string): this {
    const utf8 = new TextEncoder().encode(value);
    if (utf8.length > 0x7fff) throw new RangeError(`string of ${utf8.length} bytes is too long for a Kafka STRING`);
    this.int16(utf8.length);
    for (const byte of utf8) this.bytes.push(byte);
    return this;
  }

  array<T>(items: readonly T[], writeItem: (writer: this, item: T) => void): this {
    this.int32(items.length);
    for (const item of items) writeItem(this, item);
    return this;
  }

  toBytes(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

export class KafkaStructReader {
  private offset = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private need(count: number, what: string): void {
    if (this.offset + count > this.bytes.length)
      throw new RangeError(`${what} needs ${count} bytes, ${this.bytes.length - this.offset} left`);
  }

  int32(): number {
    this.need(4, "INT32");
    const value = this.view.getInt32(this.offset);
    this.offset += 4;
    return value;
  }

  string(): string {
    this.need(2, "STRING length");
    const length = this.view.getInt16(this.offset);
    this.offset += 2;
    if (length < 0) throw new RangeError(`STRING length ${length} cannot be negative`);
    this.need(length, "STRING");
    const value = new TextDecoder().decode(this.bytes.subarray(this.offset, this.offset + length));
    this.offset += length;
    return value;
  }

  array<T>(readItem: (reader: this) => T): T[] {
    const size = this.int32();
    if (size < 0) throw new RangeError(`ARRAY size ${size} cannot be negative`);
    if (size > this.bytes.length - this.offset)
      throw new RangeError(`ARRAY of size ${size}, only ${this.bytes.length - this.offset} bytes available`);
    return Array.from({ length: size }, () => readItem(this));
  }
}
