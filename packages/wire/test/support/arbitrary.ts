import fc from "fast-check";
import {
  type ArrayType,
  type Field,
  inRange,
  type NullableStructType,
  type StructType,
  type WireContext,
  type WireType,
} from "../../src/index.js";

/**
 * fast-check arbitraries for any wire value, derived from the schema: a
 * field the version lacks keeps its default, null appears only where the
 * version allows it. So every generated value encodes at that version and
 * must decode back equal.
 */
export function arbitraryOf(type: WireType<unknown>, ctx: WireContext): fc.Arbitrary<unknown> {
  if ("fields" in type) return arbitraryStruct(type as StructType<unknown>, ctx);
  if ("inner" in type) return arbitraryStruct((type as NullableStructType<unknown>).inner, ctx);
  if ("element" in type) return fc.array(arbitraryOf((type as ArrayType<unknown>).element, ctx), { maxLength: 3 });
  switch (type.name) {
    case "INT8":
      return fc.integer({ min: -0x80, max: 0x7f });
    case "INT16":
      return fc.integer({ min: -0x8000, max: 0x7fff });
    case "UINT16":
      return fc.integer({ min: 0, max: 0xffff });
    case "INT32":
      return fc.integer();
    case "UINT32":
      return fc.integer({ min: 0, max: 0xffffffff });
    case "INT64":
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case "FLOAT64":
      return fc.double({ noNaN: true });
    case "BOOLEAN":
      return fc.boolean();
    case "UUID":
      return fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString("base64url"));
    case "STRING":
      return fc.string({ unit: "grapheme", maxLength: 12 });
    case "BYTES":
    case "RECORDS":
      return fc.uint8Array({ maxLength: 24 });
    default:
      throw new Error(`no arbitrary for ${type.name}`);
  }
}

function arbitraryField(field: Field<unknown>, ctx: WireContext): fc.Arbitrary<unknown> {
  const present = inRange(field.versions, ctx.version) && (field.tag === undefined || ctx.flexible);
  if (!present) return fc.constant(field.defaultValue);
  const value = arbitraryOf(field.type, ctx);
  return inRange(field.nullableVersions, ctx.version) ? fc.option(value, { nil: null, freq: 4 }) : value;
}

export function arbitraryStruct(type: StructType<unknown>, ctx: WireContext): fc.Arbitrary<unknown> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, field] of Object.entries(type.fields)) shape[key] = arbitraryField(field, ctx);
  return fc.record(shape);
}
