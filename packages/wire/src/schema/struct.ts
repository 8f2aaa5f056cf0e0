import { Reader } from "../io/reader.js";
import { Writer } from "../io/writer.js";
import { WireError } from "../wire-error.js";
import { inRange, NO_VERSIONS, type VersionRange, versionRange } from "./versions.js";
import { type WireContext, type WireType, wireEquals } from "./wire-type.js";

/** A tagged field this schema does not know, kept as raw bytes so a message re-encodes unchanged. */
export interface RawTaggedField {
  readonly tag: number;
  readonly data: Uint8Array;
}

/** What every decoded struct may carry besides its fields. */
export interface StructExtras {
  _unknownTaggedFields?: RawTaggedField[];
}

/**
 * One field of a struct, as in Kafka's message specs: the versions it is
 * in, the versions it may be null in, its default (the value it takes in
 * versions without it), whether it may be silently dropped when written at
 * a version without it (`ignorable`), and its tag if it is a tagged field.
 */
export interface Field<T> {
  readonly type: WireType<T>;
  readonly versions: VersionRange;
  readonly nullableVersions: VersionRange;
  readonly defaultValue: T;
  readonly ignorable: boolean;
  readonly tag?: number;
}

interface FieldOptions<T> {
  readonly default?: T;
  readonly ignorable?: boolean;
  /** A tagged field: written in the tagged-field section of flexible versions, only when not at its default. */
  readonly tag?: number;
}

export function field<T>(type: WireType<T>, versions: string, options: FieldOptions<T> = {}): Field<T> {
  return {
    type,
    versions: versionRange(versions),
    nullableVersions: NO_VERSIONS,
    defaultValue: options.default ?? type.zero,
    ignorable: options.ignorable ?? false,
    ...(options.tag === undefined ? {} : { tag: options.tag }),
  };
}

/** A field that may be null in `nullableVersions` (its default is null unless given). */
export function nullableField<T>(
  type: WireType<T>,
  versions: string,
  nullableVersions: string,
  options: FieldOptions<T | null> = {},
): Field<T | null> {
  if (!type.hasNull) throw new RangeError(`${type.name} has no null encoding`);
  return {
    type: type as WireType<T | null>,
    versions: versionRange(versions),
    nullableVersions: versionRange(nullableVersions),
    defaultValue: options.default === undefined ? null : options.default,
    ignorable: options.ignorable ?? false,
    ...(options.tag === undefined ? {} : { tag: options.tag }),
  };
}

type FieldValue<F> = F extends Field<infer T> ? T : never;
export type StructValue<F extends Record<string, Field<unknown>>> = { -readonly [K in keyof F]: FieldValue<F[K]> } & StructExtras;

export interface StructType<T> extends WireType<T> {
  readonly fields: Readonly<Record<string, Field<unknown>>>;
  /** A value with every field at its default. */
  defaults(): T;
}

function prefixed(error: unknown, path: string): unknown {
  if (!(error instanceof WireError)) return error;
  const detail = error.message.slice(error.kind.length + 2);
  return new WireError(error.kind, `${path}: ${detail}`, error.context);
}

/** A fresh copy of a default array or struct (a tagged struct field's default), so decoded values never share one. */
function copyDefault<T>(value: T): T {
  if (Array.isArray(value)) return [...value] as T;
  if (value !== null && typeof value === "object" && !(value instanceof Uint8Array)) return { ...value };
  return value;
}

/**
 * A struct: its fields in wire order. In flexible versions it ends with a
 * tagged-field section; unknown tags are kept raw, known ones decoded.
 */
export function struct<F extends Record<string, Field<unknown>>>(name: string, fields: F): StructType<StructValue<F>> {
  const entries = Object.entries(fields) as [string, Field<unknown>][];
  const byTag = new Map<number, [string, Field<unknown>]>();
  for (const entry of entries) if (entry[1].tag !== undefined) byTag.set(entry[1].tag, entry);

  const defaults = (): StructValue<F> => {
    const out: Record<string, unknown> = {};
    for (const [key, f] of entries) out[key] = copyDefault(f.defaultValue);
    return out as StructValue<F>;
  };

  const isTaggedAt = (f: Field<unknown>, ctx: WireContext): boolean =>
    f.tag !== undefined && ctx.flexible && inRange(f.versions, ctx.version);
  const isInlineAt = (f: Field<unknown>, ctx: WireContext): boolean => f.tag === undefined && inRange(f.versions, ctx.version);

  const type: StructType<StructValue<F>> = {
    name,
    fields,
    defaults,
    get zero() {
      return defaults();
    },
    hasNull: false,
    minSize(ctx) {
      let size = ctx.flexible ? 1 : 0;
      for (const [, f] of entries) if (isInlineAt(f, ctx)) size += f.type.minSize(ctx);
      return size;
    },
    read(reader, ctx) {
      const out: Record<string, unknown> = {};
      for (const [key, f] of entries) {
        if (!isInlineAt(f, ctx)) {
          out[key] = copyDefault(f.defaultValue);
          continue;
        }
        let value: unknown;
        try {
          value = f.type.read(reader, ctx);
        } catch (error) {
          throw prefixed(error, `${name}.${key}`);
        }
        if (value === null && !inRange(f.nullableVersions, ctx.version)) {
          throw new WireError("malformed", `${name}.${key} is null, which v${ctx.version} does not allow`, { offset: reader.offset });
        }
        out[key] = value;
      }
      if (ctx.flexible) {
        const unknown = readTaggedFields(reader, ctx, name, byTag, out);
        if (unknown.length > 0) out._unknownTaggedFields = unknown;
      }
      return out as StructValue<F>;
    },
    write(writer, value, ctx) {
      if (value === null) throw new WireError("unencodable", `${name} cannot be null here`);
      const record = value as Record<string, unknown>;
      for (const [key, f] of entries) {
        const fieldValue = record[key];
        if (isInlineAt(f, ctx)) {
          if (fieldValue === undefined) throw new WireError("unencodable", `${name}.${key} is missing`);
          if (fieldValue === null && !inRange(f.nullableVersions, ctx.version)) {
            throw new WireError("unencodable", `${name}.${key} cannot be null at v${ctx.version}`);
          }
          try {
            f.type.write(writer, fieldValue, ctx);
          } catch (error) {
            throw prefixed(error, `${name}.${key}`);
          }
        } else if (!isTaggedAt(f, ctx) && !f.ignorable && fieldValue !== undefined && !wireEquals(fieldValue, f.defaultValue)) {
          // Kafka's UnsupportedVersionException: a non-ignorable field with a non-default value has no place in this version.
          throw new WireError("unencodable", `${name}.${key} has a non-default value that v${ctx.version} cannot carry`);
        }
      }
      if (ctx.flexible) writeTaggedFields(writer, ctx, name, entries, record);
    },
  };
  return type;
}

function readTaggedFields(
  reader: Reader,
  ctx: WireContext,
  name: string,
  byTag: ReadonlyMap<number, [string, Field<unknown>]>,
  out: Record<string, unknown>,
): RawTaggedField[] {
  const at = reader.offset;
  const count = reader.uvarint();
  // Each tagged field takes at least two bytes (tag and size).
  if (count * 2 > reader.remaining) {
    throw new WireError("invalid-length", `${name}: ${count} tagged fields at offset ${at}, only ${reader.remaining} bytes left`, {
      offset: at,
    });
  }
  const unknown: RawTaggedField[] = [];
  // Like Kafka's generated readers, tags are accepted in any order.
  for (let i = 0; i < count; i++) {
    const tagAt = reader.offset;
    const tag = reader.uvarint();
    const size = reader.uvarint();
    const body = reader.slice(size, `${name} tagged field ${tag}`);
    const known = byTag.get(tag);
    if (known === undefined || !inRange(known[1].versions, ctx.version)) {
      unknown.push({ tag, data: new Uint8Array(reader.bytes.subarray(body.offset, body.offset + size)) });
      continue;
    }
    const [key, f] = known;
    let value: unknown;
    try {
      value = f.type.read(body, ctx);
    } catch (error) {
      throw prefixed(error, `${name}.${key}`);
    }
    if (body.remaining !== 0)
      throw new WireError(
        "malformed",
        `${name}.${key}: tagged field ${tag} declares ${size} bytes but its value took ${size - body.remaining}`,
        { offset: tagAt },
      );
    if (value === null && !inRange(f.nullableVersions, ctx.version))
      throw new WireError("malformed", `${name}.${key} is null, which v${ctx.version} does not allow`);
    out[key] = value;
  }
  return unknown;
}

function writeTaggedFields(
  writer: Writer,
  ctx: WireContext,
  name: string,
  entries: readonly [string, Field<unknown>][],
  record: Record<string, unknown>,
): void {
  const tagged: { tag: number; data: Uint8Array }[] = [];
  for (const [key, f] of entries) {
    if (f.tag === undefined || !inRange(f.versions, ctx.version)) continue;
    const value = record[key];
    if (value === undefined || wireEquals(value, f.defaultValue)) continue;
    if (value === null && !inRange(f.nullableVersions, ctx.version))
      throw new WireError("unencodable", `${name}.${key} cannot be null at v${ctx.version}`);
    const sub = new Writer(64);
    f.type.write(sub, value, ctx);
    tagged.push({ tag: f.tag, data: sub.finish() });
  }
  const unknown = (record as StructExtras)._unknownTaggedFields;
  if (unknown) tagged.push(...unknown);
  tagged.sort((a, b) => a.tag - b.tag);
  writer.uvarint(tagged.length);
  for (const { tag, data } of tagged) writer.uvarint(tag).uvarint(data.length).bytes(data);
}

export interface NullableStructType<T> extends WireType<T> {
  readonly inner: StructType<T>;
}

/** A struct field that may be null, encoded as Kafka does: an INT8 marker (-1 null, 1 present) before the struct. */
export function nullableStruct<T>(inner: StructType<T>): NullableStructType<T> {
  return {
    name: inner.name,
    inner,
    get zero() {
      return inner.defaults();
    },
    hasNull: true,
    minSize: () => 1,
    read(reader, ctx) {
      return reader.int8() < 0 ? null : inner.read(reader, ctx);
    },
    write(writer, value, ctx) {
      if (value === null) {
        writer.int8(-1);
        return;
      }
      writer.int8(1);
      inner.write(writer, value, ctx);
    },
  };
}

/** Decodes a whole struct from bytes (nothing may be left over). */
export function decodeStruct<T>(type: StructType<T>, bytes: Uint8Array, ctx: WireContext): T {
  const reader = new Reader(bytes);
  const value = type.read(reader, ctx);
  if (value === null) throw new WireError("malformed", `${type.name} is null`);
  if (reader.remaining !== 0)
    throw new WireError("trailing-bytes", `${reader.remaining} bytes after ${type.name} at offset ${reader.offset}`, {
      offset: reader.offset,
    });
  return value;
}

export function encodeStruct<T>(type: StructType<T>, value: T, ctx: WireContext): Uint8Array {
  const writer = new Writer();
  type.write(writer, value, ctx);
  return writer.finish();
}
