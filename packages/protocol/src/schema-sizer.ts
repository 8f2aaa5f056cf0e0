import { Kind, type TObject, type TSchema } from "@sinclair/typebox";
import { binHeader, lengthHeader, numberSize, stringSize } from "./msgpack-sizes.js";

/**
 * Frame lengths of messages that have their schema's shape, by code
 * compiled from the schema.
 *
 * The size pass's generic walk (sealed-message.ts) learns each object's
 * shape by following its keys through a trie and sizes each value after
 * asking what it is: most of its cost on a small message such as a
 * FetchRequest. Messages are built with their schema's keys in the
 * schema's order (schema.ts; nearly all are), so each object shape of the schemas gets
 * a function, generated once, that checks the object has exactly those keys
 * in that order (one for-in, string identity compares) and then reads each
 * field by name and sizes it as its schema kind says. Nothing is assumed:
 * a value of another kind, another key order, an extra or missing key, an
 * object of another class, a byte array that is not a Uint8Array: the
 * sizer gives up (`NOT_SIZED`) and the generic walk sizes the message, as
 * it does every message of a type without a sizer. Every object shape of
 * the schemas is a shared structure (codec.ts), so a message sized here
 * defines no structure of its own and its size does not depend on the
 * frame's history.
 *
 * A sealing sizer also seals as the generic walk does: it copies the byte
 * arrays of the objects it freezes and freezes each object and array after
 * sizing what it holds; a value already frozen is sized through the pass's
 * cache of sealed values (`frozenSize`). Once it has given up it freezes
 * nothing more, so the generic walk that follows seals the rest. A sealer
 * (mode "seal") does the same without sizing: it checks every value's kind
 * as the sizers do (a value of another kind is the generic walk's to seal,
 * or to refuse) and passes by a value an earlier message sealed whole.
 */

/** What a compiled sizer returns for a message that departs from its schema's shape. */
export const NOT_SIZED = -1;

/** What the compiled sizers need from the size pass that runs them. */
export interface SizePassHooks {
  /** The record header of an object with these keys (a reference to its shared structure), or undefined if the table has none. */
  sharedRecordHeader(keys: readonly string[]): number | undefined;
  /**
   * The size of a value frozen before this pass: the pass's cached size, or
   * `walk(value, false)`, cached as the pass decides unless the walk gave up
   * (`sizing.failed`).
   */
  frozenSize<T extends object>(value: T, walk: (value: T, sealing: boolean) => number, sizing: SizerState): number;
  /**
   * Seals what a value frozen before this pass may still hold unfrozen:
   * nothing if it was sealed whole, else `walk(value, false)`, after which
   * the pass may count it sealed whole unless the walk gave up.
   */
  frozenSealed<T extends object>(value: T, walk: (value: T, sealing: boolean) => number, sizing: SizerState): number;
  /** Counts a byte array met (a value holding one cannot be sealed whole). */
  bytesMet(): void;
}

/** Whether the compiled sizers gave up on the message being sized. */
export interface SizerState {
  readonly failed: boolean;
}

/**
 * What the compiled code does: size (encodedSize), size and seal
 * (sealMessage), or seal without sizing (sealUnsized: it returns 0 for a
 * message it sealed).
 */
export type SizerMode = "size" | "size-and-seal" | "seal";

/** A message's frame length, or NOT_SIZED. */
export type MessageSizer = (message: object) => number;

/** A sizer of one schema's values: sizing code for the value expression given (`(v) => "..."`). */
type Emit = (value: string) => string;

/** Compiles sizers for message schemas, one per type, on first use, for one mode. */
export class SchemaSizers {
  readonly #schemas: ReadonlyMap<string, TObject>;
  readonly #hooks: SizePassHooks;
  readonly #mode: SizerMode;
  readonly #byType = new Map<string, MessageSizer | null>();
  /** The generated functions, referred to by index from the code (F[i]). */
  readonly #functions: ((value: never) => number)[] = [];
  /** One function per shape (its key list and kind), so a shape used in several messages is compiled once. */
  readonly #byShape = new Map<TSchema, number>();
  /** Set when a sizer gives up on the message being sized: then nothing more is frozen and the caller walks it generically. */
  readonly #pass = { failed: false };

  constructor(schemas: ReadonlyMap<string, TObject>, hooks: SizePassHooks, mode: SizerMode) {
    this.#schemas = schemas;
    this.#hooks = hooks;
    this.#mode = mode;
  }

  /** The frame length of `message` if its type has a sizer and it has its schema's shape, else NOT_SIZED. */
  size(message: object): number {
    const type = (message as { type?: unknown }).type;
    if (typeof type !== "string") return NOT_SIZED;
    let sizer = this.#byType.get(type);
    if (sizer === undefined) {
      sizer = this.#compile(type);
      this.#byType.set(type, sizer);
    }
    if (sizer === null) return NOT_SIZED;
    this.#pass.failed = false;
    const size = sizer(message);
    return this.#pass.failed ? NOT_SIZED : size;
  }

  #compile(type: string): MessageSizer | null {
    const schema = this.#schemas.get(type);
    if (schema === undefined) return null;
    try {
      const index = this.#function(schema);
      return this.#functions[index] as MessageSizer;
    } catch (error) {
      // A schema of a kind this compiler does not know: its messages are walked generically.
      if (error instanceof UnsupportedSchema) return null;
      throw error;
    }
  }

  /** Code sizing a value of `schema` held in the expression `value` (checking its kind only, in mode "seal"). */
  #emit(schema: TSchema): Emit {
    const sized = this.#mode !== "seal";
    switch (schema[Kind]) {
      case "Integer":
      case "Number":
        return (v) => `(typeof ${v} === "number" ? ${sized ? `numberSize(${v})` : "0"} : fail())`;
      case "String":
        return (v) => `(typeof ${v} === "string" ? ${sized ? `stringSize(${v})` : "0"} : fail())`;
      case "Literal": {
        if (typeof schema.const !== "string") throw new UnsupportedSchema();
        if (!sized) return (v) => `(typeof ${v} === "string" ? 0 : fail())`;
        const literal = JSON.stringify(schema.const);
        const size = stringSize(schema.const);
        return (v) => `(${v} === ${literal} ? ${size} : typeof ${v} === "string" ? stringSize(${v}) : fail())`;
      }
      case "Boolean":
        return (v) => `(typeof ${v} === "boolean" ? ${sized ? 1 : 0} : fail())`;
      case "Null":
        return (v) => `(${v} === null ? ${sized ? 1 : 0} : fail())`;
      case "Uint8Array":
        return (v) => `(${v} instanceof Uint8Array ? bytes(${v}.byteLength${sized ? "" : ", 0"}) : fail())`;
      case "Union": {
        const members = schema.anyOf as TSchema[];
        if (members.length !== 2 || (members[1] as TSchema)[Kind] !== "Null") throw new UnsupportedSchema();
        const inner = this.#emit(members[0] as TSchema);
        return (v) => `(${v} === null ? ${sized ? 1 : 0} : ${inner(v)})`;
      }
      case "Array":
      case "Object": {
        const index = this.#function(schema);
        return (v) => `F[${index}](${v})`;
      }
      default:
        throw new UnsupportedSchema();
    }
  }

  /** The index of the generated function sizing values of an object or array schema. */
  #function(schema: TSchema): number {
    const known = this.#byShape.get(schema);
    if (known !== undefined) return known;
    const index = this.#functions.length;
    // Its slot, filled below (a shape may hold itself); a shape whose code cannot be made keeps one that gives up.
    this.#functions.push(() => {
      this.#pass.failed = true;
      return 0;
    });
    this.#byShape.set(schema, index);
    const source = schema[Kind] === "Array" ? this.#arraySource(schema) : this.#objectSource(schema as TObject);
    const factory = new Function("F", "pass", "hooks", "stringSize", "numberSize", "lengthHeader", "binHeader", source) as (
      ...args: unknown[]
    ) => (value: never) => number;
    this.#functions[index] = factory(this.#functions, this.#pass, this.#hooks, stringSize, numberSize, lengthHeader, binHeader);
    return index;
  }

  /** The prelude every generated function shares: giving up, and a byte array's size. */
  static readonly #prelude = `
    const fail = () => { pass.failed = true; return 0; };
    const bytes = (n, size = binHeader(n) + n) => { hooks.bytesMet(); return size; };
    const copy = (value) => (value instanceof Uint8Array ? Buffer.copyBytesFrom(value) : value);`;

  /**
   * An object of the schema's keys in its order: checked with one for-in
   * (it also yields inherited enumerable keys, which fail the check as
   * msgpackr would write them), then each field read by name.
   */
  #objectSource(schema: TObject): string {
    const keys = Object.keys(schema.properties);
    const header = this.#hooks.sharedRecordHeader(keys);
    if (header === undefined) throw new UnsupportedSchema();
    const fields = keys.map((key) => this.#emit(schema.properties[key] as TSchema)(`o[${JSON.stringify(key)}]`));
    const copies = keys
      .filter((key) => (schema.properties[key] as TSchema)[Kind] === "Uint8Array")
      .map((key) => `o[${JSON.stringify(key)}] = copy(o[${JSON.stringify(key)}]);`)
      .join(" ");
    return `${SchemaSizers.#prelude}
    const KEYS = ${JSON.stringify(keys)};
    const walk = (o, sealing) => {
      ${copies === "" ? "" : `if (sealing) { ${copies} }`}
      const size = ${this.#mode === "seal" ? 0 : header}${fields.map((field) => ` + ${field}`).join("")};
      if (sealing && !pass.failed) Object.freeze(o);
      return size;
    };
    return (o) => {
      if (typeof o !== "object" || o === null || o.constructor !== Object) return fail();
      let n = 0;
      for (const key in o) {
        if (key !== KEYS[n]) return fail();
        n++;
      }
      if (n !== ${keys.length}) return fail();
      ${this.#entry()}
    };`;
  }

  /** A plain array of the schema's items. */
  #arraySource(schema: TSchema): string {
    const itemSchema = schema.items as TSchema;
    const item = this.#emit(itemSchema);
    const copy = itemSchema[Kind] === "Uint8Array" ? "if (sealing) a[i] = x = copy(x);" : "";
    return `${SchemaSizers.#prelude}
    const walk = (a, sealing) => {
      let size = ${this.#mode === "seal" ? 0 : "lengthHeader(a.length)"};
      for (let i = 0; i < a.length; i++) {
        let x = a[i];
        ${copy}
        size += ${item("x")};
      }
      if (sealing && !pass.failed) Object.freeze(a);
      return size;
    };
    return (a) => {
      if (typeof a !== "object" || a === null || a.constructor !== Array) return fail();
      ${this.#entry("a")}
    };`;
  }

  /**
   * How a checked value is sized: walked; when sealing, sealed as it is
   * walked unless an earlier message froze it (Object.isExtensible is
   * answered without leaving JavaScript, Object.isFrozen is a runtime call).
   */
  #entry(value = "o"): string {
    if (this.#mode === "size") return `return walk(${value}, false);`;
    return `if (pass.failed) return 0;
      if (Object.isExtensible(${value}) || !Object.isFrozen(${value})) return walk(${value}, true);
      return hooks.${this.#mode === "seal" ? "frozenSealed" : "frozenSize"}(${value}, walk, pass);`;
  }
}

/** A schema kind the compiler does not generate code for. */
class UnsupportedSchema extends Error {}
