import type { Reader } from "../io/reader.js";
import type { Writer } from "../io/writer.js";
import { WireError } from "../wire-error.js";
import type { WireContext, WireType } from "./wire-type.js";

function fixed<T>(name: string, size: number, zero: T, read: (r: Reader) => T, write: (w: Writer, v: T) => void): WireType<T> {
  return {
    name,
    zero,
    hasNull: false,
    minSize: () => size,
    read: (reader) => read(reader),
    write: (writer, value) => {
      if (value === null) throw new WireError("unencodable", `${name} cannot be null`);
      write(writer, value);
    },
  };
}

function checkedInt(name: string, min: number, max: number, write: (w: Writer, v: number) => void): (w: Writer, v: number) => void {
  return (w, v) => {
    if (!Number.isInteger(v) || v < min || v > max) throw new WireError("unencodable", `${v} is not an ${name}`);
    write(w, v);
  };
}

export const int8: WireType<number> = fixed(
  "INT8",
  1,
  0,
  (r) => r.int8(),
  checkedInt("INT8", -0x80, 0x7f, (w, v) => w.int8(v)),
);
export const int16: WireType<number> = fixed(
  "INT16",
  2,
  0,
  (r) => r.int16(),
  checkedInt("INT16", -0x8000, 0x7fff, (w, v) => w.int16(v)),
);
export const uint16: WireType<number> = fixed(
  "UINT16",
  2,
  0,
  (r) => r.uint16(),
  checkedInt("UINT16", 0, 0xffff, (w, v) => w.uint16(v)),
);
export const int32: WireType<number> = fixed(
  "INT32",
  4,
  0,
  (r) => r.int32(),
  checkedInt("INT32", -0x80000000, 0x7fffffff, (w, v) => w.int32(v)),
);
export const uint32: WireType<number> = fixed(
  "UINT32",
  4,
  0,
  (r) => r.uint32(),
  checkedInt("UINT32", 0, 0xffffffff, (w, v) => w.uint32(v)),
);
export const int64: WireType<bigint> = fixed(
  "INT64",
  8,
  0n,
  (r) => r.int64(),
  (w, v) => {
    if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new WireError("unencodable", `${v} is not an INT64`);
    w.int64(v);
  },
);
export const float64: WireType<number> = fixed(
  "FLOAT64",
  8,
  0,
  (r) => r.float64(),
  (w, v) => w.float64(v),
);
export const bool: WireType<boolean> = fixed(
  "BOOLEAN",
  1,
  false,
  (r) => r.bool(),
  (w, v) => w.bool(v),
);

const UUID_TEXT = /^[A-Za-z0-9_-]{22}$/;

/** Kafka's Uuid.ZERO_UUID in its string form. */
export const ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA";

/** The 16 bytes of a Kafka Uuid in its string form (base64url, no padding, as `Uuid.toString()`), or undefined if it is not one. */
export function uuidBytes(text: string): Uint8Array | undefined {
  if (!UUID_TEXT.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  if (bytes.length !== 16 || bytes.toString("base64url") !== text) return undefined;
  return bytes;
}

/** UUID: 16 bytes, carried as Kafka's string form. */
export const uuid: WireType<string> = fixed(
  "UUID",
  16,
  ZERO_UUID,
  (r) => Buffer.from(r.take(16, "UUID")).toString("base64url"),
  (w, v) => {
    const bytes = uuidBytes(v);
    if (bytes === undefined) throw new WireError("unencodable", `"${v}" is not a Kafka Uuid (22 base64url characters for 16 bytes)`);
    w.bytes(bytes);
  },
);

/** Reads a length that is -1 for null (classic encodings) or uvarint n+1 with 0 for null (compact). */
function readLength(reader: Reader, ctx: WireContext, classic: () => number, what: string): number | null {
  const at = reader.offset;
  if (ctx.flexible) {
    const n = reader.uvarint();
    return n === 0 ? null : n - 1;
  }
  const n = classic();
  if (n === -1) return null;
  if (n < 0) throw new WireError("invalid-length", `${what} length ${n} at offset ${at} is negative`, { offset: at });
  return n;
}

/** STRING / COMPACT_STRING (and their nullable forms): UTF-8 with an INT16 or uvarint length. */
export const string: WireType<string> = {
  name: "STRING",
  zero: "",
  hasNull: true,
  minSize: () => 1,
  read(reader, ctx) {
    const length = readLength(reader, ctx, () => reader.int16(), "STRING");
    return length === null ? null : reader.utf8(length, "STRING");
  },
  write(writer, value, ctx) {
    if (value === null) {
      if (ctx.flexible) writer.uvarint(0);
      else writer.int16(-1);
      return;
    }
    writer.utf8(value, (n) => {
      if (ctx.flexible) writer.uvarint(n + 1);
      else if (n > 0x7fff) throw new WireError("unencodable", `a STRING of ${n} bytes exceeds 32767`);
      else writer.int16(n);
    });
  },
};

/** BYTES / COMPACT_BYTES (and nullable forms). Decoded bytes are views into the frame, not copies. */
export const bytes: WireType<Uint8Array> = {
  name: "BYTES",
  zero: new Uint8Array(0),
  hasNull: true,
  minSize: () => 1,
  read(reader, ctx) {
    const length = readLength(reader, ctx, () => reader.int32(), "BYTES");
    return length === null ? null : reader.take(length, "BYTES");
  },
  write(writer, value, ctx) {
    if (value === null) {
      if (ctx.flexible) writer.uvarint(0);
      else writer.int32(-1);
      return;
    }
    if (ctx.flexible) writer.uvarint(value.length + 1);
    else writer.int32(value.length);
    writer.bytes(value);
  },
};

/** RECORDS: record batches as opaque bytes here (see records/ for their contents); always nullable. */
export const records: WireType<Uint8Array> = { ...bytes, name: "RECORDS" };

export interface ArrayType<T> extends WireType<T[]> {
  readonly element: WireType<T>;
}

/** ARRAY / COMPACT_ARRAY of an element type (and nullable forms). */
export function array<T>(element: WireType<T>): ArrayType<T> {
  const name = `[]${element.name}`;
  return {
    name,
    element,
    zero: [],
    hasNull: true,
    minSize: () => 1,
    read(reader, ctx) {
      const at = reader.offset;
      const count = readLength(reader, ctx, () => reader.int32(), name);
      if (count === null) return null;
      // Kafka's guard ("Tried to allocate a collection of size N, but there are only M bytes remaining"),
      // tightened by the element's own minimum size.
      if (count * Math.max(1, element.minSize(ctx)) > reader.remaining) {
        throw new WireError("invalid-length", `${name} of ${count} elements at offset ${at}, only ${reader.remaining} bytes left`, {
          offset: at,
        });
      }
      const out = new Array<T>(count);
      for (let i = 0; i < count; i++) {
        const item = element.read(reader, ctx);
        if (item === null) throw new WireError("malformed", `${name}[${i}] is null`, { offset: reader.offset });
        out[i] = item;
      }
      return out;
    },
    write(writer, value, ctx) {
      if (value === null) {
        if (ctx.flexible) writer.uvarint(0);
        else writer.int32(-1);
        return;
      }
      if (ctx.flexible) writer.uvarint(value.length + 1);
      else writer.int32(value.length);
      for (const item of value) element.write(writer, item, ctx);
    },
  };
}
