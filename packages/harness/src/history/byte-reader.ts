const utf8 = new TextDecoder();

/** Reads what a ByteWriter wrote, from one byte array. */
export class ByteReader {
  readonly bytes: Uint8Array;
  pos: number;
  #floats = new Float64Array(1);
  #floatBytes = new Uint8Array(this.#floats.buffer);

  constructor(bytes: Uint8Array, pos = 0) {
    this.bytes = bytes;
    this.pos = pos;
  }

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  u8(): number {
    if (this.pos >= this.bytes.length) throw new RangeError("history block ends inside a record");
    return this.bytes[this.pos++] as number;
  }

  uint(): number {
    let byte = this.u8();
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    for (;;) {
      byte = this.u8();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }

  int(): number {
    const zigzag = this.uint();
    return zigzag % 2 === 0 ? zigzag / 2 : -(zigzag + 1) / 2;
  }

  float64(): number {
    if (this.pos + 8 > this.bytes.length) throw new RangeError("history block ends inside a record");
    this.#floatBytes.set(this.bytes.subarray(this.pos, this.pos + 8));
    this.pos += 8;
    return this.#floats[0] as number;
  }

  string(): string {
    const size = this.uint();
    const end = this.pos + size;
    if (end > this.bytes.length) throw new RangeError("history block ends inside a string");
    const bytes = this.bytes;
    let text = "";
    if (size <= 32) {
      // Short strings are mostly ASCII: building them char by char beats a TextDecoder call.
      let i = this.pos;
      for (; i < end; i++) {
        const code = bytes[i] as number;
        if (code >= 0x80) break;
        text += String.fromCharCode(code);
      }
      if (i === end) {
        this.pos = end;
        return text;
      }
    }
    text = utf8.decode(bytes.subarray(this.pos, end));
    this.pos = end;
    return text;
  }
}
