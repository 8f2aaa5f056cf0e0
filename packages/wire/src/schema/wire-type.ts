import type { Reader } from "../io/reader.js";
import type { Writer } from "../io/writer.js";

/** What a value is being read or written as: the message version and whether it is a flexible one. */
export interface WireContext {
  readonly version: number;
  readonly flexible: boolean;
}

/**
 * One of Kafka's wire types. `read` returns null only when the encoding
 * says null (a -1 length, a compact 0, a -1 struct marker); whether null is
 * allowed at a version is the field's business, not the type's.
 */
export interface WireType<T> {
  readonly name: string;
  /** The value a field of this type takes when its spec gives no default (Kafka's generator rules). */
  readonly zero: T;
  /** Whether the type has a null encoding at all. */
  readonly hasNull: boolean;
  /** The fewest bytes one non-null value takes: bounds hostile element counts before anything is allocated. */
  minSize(ctx: WireContext): number;
  read(reader: Reader, ctx: WireContext): T | null;
  write(writer: Writer, value: T | null, ctx: WireContext): void;
}

/** Structural equality over wire values (bigints, byte arrays, arrays, plain objects). */
export function wireEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false;
    return a.every((item, i) => wireEquals(item, b[i]));
  }
  const keysA = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((k) => wireEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
