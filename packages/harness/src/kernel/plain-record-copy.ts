/** What plainRecordCopy answers for a record it does not model. */
export const NOT_PLAIN: unique symbol = Symbol("not plain data");

/** String.prototype.isWellFormed (ES2024; Node 20 has it, the ES2022 lib does not declare it). */
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed;

/**
 * A deep copy of a durable-log record that is plain data the codec gives
 * back exactly as it is: plain objects and arrays (no holes) of strings
 * (well-formed: a lone surrogate comes back as U+FFFD), booleans, null,
 * undefined and numbers (not -0, which comes back as 0). Such a copy reads
 * exactly as a decoded copy of the record's frame would, without encoding
 * it. Anything else (byte arrays, bigints, Maps, Dates, class instances,
 * null-prototype objects, a `__proto__` key) gives NOT_PLAIN: the log then
 * keeps the record's frame, as it always did.
 *
 * Nothing is frozen: V8 runs loops over a mix of frozen and unfrozen arrays
 * several times slower, and a reader's state is built from these copies.
 */
export function plainRecordCopy(record: unknown): unknown {
  switch (typeof record) {
    case "boolean":
    case "undefined":
      return record;
    case "string":
      return isWellFormed.call(record) ? record : NOT_PLAIN;
    case "number":
      return record !== 0 || 1 / record > 0 ? record : NOT_PLAIN;
    case "object": {
      if (record === null) return null;
      const proto = Object.getPrototypeOf(record);
      if (proto === Array.prototype) {
        const array = record as unknown[];
        const copy: unknown[] = [];
        for (let i = 0; i < array.length; i++) {
          if (!(i in array)) return NOT_PLAIN;
          const item = plainRecordCopy(array[i]);
          if (item === NOT_PLAIN) return NOT_PLAIN;
          copy.push(item);
        }
        return copy;
      }
      if (proto !== Object.prototype) return NOT_PLAIN;
      const object = record as Record<string, unknown>;
      const copy: Record<string, unknown> = {};
      for (const key in object) {
        if (key === "__proto__") return NOT_PLAIN;
        const value = plainRecordCopy(object[key]);
        if (value === NOT_PLAIN) return NOT_PLAIN;
        copy[key] = value;
      }
      return copy;
    }
    default:
      return NOT_PLAIN;
  }
}
