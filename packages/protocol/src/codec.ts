import { createRequire } from "node:module";
import { Kind, type TObject, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, type ValueErrorIterator, ValueErrorType } from "@sinclair/typebox/errors";
import type { Packr } from "msgpackr";
import { MESSAGE_SCHEMAS, type Message, SCHEMA_BY_TYPE } from "./messages/index.js";

/** Why a frame was rejected. */
export type CodecErrorReason = "truncated" | "malformed" | "unknown-type" | "invalid-shape";

/**
 * A frame that is not a known message of the right shape. `message` is one
 * line naming the problem (and, for a bad shape, the field's path).
 */
export class CodecError extends Error {
  override readonly name = "CodecError";
  constructor(
    readonly reason: CodecErrorReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/**
 * The key lists of every object shape the messages contain, in a fixed
 * order derived from MESSAGE_SCHEMAS. Both ends of every channel build the
 * same table from the same code, so it is never transmitted; it is frozen
 * (`maxSharedStructures` = its length) so no frame depends on an earlier one.
 */
function sharedStructures(): string[][] {
  const seen = new Set<string>();
  const table: string[][] = [];
  const visit = (schema: TSchema): void => {
    if (schema[Kind] === "Object") {
      const keys = Object.keys((schema as TObject).properties);
      const id = keys.join(",");
      if (keys.length > 0 && !seen.has(id)) {
        seen.add(id);
        table.push(keys);
      }
      for (const key of keys) visit((schema as TObject).properties[key] as TSchema);
    } else if (schema[Kind] === "Array") {
      visit(schema.items as TSchema);
    } else if (schema[Kind] === "Union") {
      for (const member of schema.anyOf as TSchema[]) visit(member);
    }
  };
  for (const schema of MESSAGE_SCHEMAS) visit(schema);
  return table;
}

export const SHARED_STRUCTURES: readonly (readonly string[])[] = sharedStructures();

/**
 * How many structures a frame may define for itself (shapes not in the
 * shared table: a message or value with other keys). Passed to msgpackr
 * explicitly (it is msgpackr's default with shared structures) because the
 * size pass (sealed-message.ts) must count record headers as msgpackr
 * writes them.
 */
export const MAX_OWN_STRUCTURES = 32;

let packrMade: Packr | null = null;

/**
 * The codec's msgpackr instance, made (and msgpackr loaded) on first use.
 * The inline host hands messages over as sealed objects and sizes them
 * without msgpackr, so a run that encodes nothing (no worker host, no
 * corrupted frame, no durable record the value tape refuses) never loads
 * it, nor the native code msgpackr looks for as it loads: 3% of the
 * instructions of a `kcsim run scenarios/m10-join.json`.
 */
function packr(): Packr {
  if (packrMade === null) {
    const { Packr: PackrClass } = createRequire(import.meta.url)("msgpackr") as typeof import("msgpackr");
    // The table is handed over through getStructures (not the `structures`
    // option): with more than 32 shared structures msgpackr switches to two-byte
    // record ids, and only structures loaded this way are laid out for them
    // (passed as `structures`, ids above 32 decode to wrong objects; measured).
    // saveStructures is never called: the table is full, nothing new is shared.
    packrMade = new PackrClass({
      useRecords: true,
      getStructures: () => SHARED_STRUCTURES.map((keys) => [...keys]),
      saveStructures: () => true,
      maxSharedStructures: SHARED_STRUCTURES.length,
      maxOwnStructures: MAX_OWN_STRUCTURES,
      shouldShareStructure: () => false,
    });
  }
  return packrMade;
}

const checks = new Map<string, TypeCheck<TObject>>();

/** Compiled validators, built on first use of each message type. */
function checkFor(type: string): TypeCheck<TObject> | undefined {
  let check = checks.get(type);
  if (check === undefined) {
    const schema = SCHEMA_BY_TYPE.get(type);
    if (schema === undefined) return undefined;
    check = TypeCompiler.Compile(schema);
    checks.set(type, check);
  }
  return check;
}

/**
 * Copies msgpackr's output (a view into its reused buffer) into a frame of
 * its own. Node's pooled `Buffer.allocUnsafe` makes the copy ~3x cheaper
 * than a fresh Uint8Array (measured); the frame may therefore be a view into
 * a shared slab: to post it to another thread, copy it into the batch buffer
 * (as the worker hosts do), never post the view itself.
 */
function ownCopy(packed: Uint8Array): Uint8Array {
  const frame = Buffer.allocUnsafe(packed.length);
  frame.set(packed);
  return frame;
}

/** Encodes a message into a frame the caller owns. */
export function encode(message: Message): Uint8Array {
  return ownCopy(packr().pack(message));
}

/** Decodes a frame without validating its shape (for trusted, already-checked data). */
export function decodeUnchecked(frame: Uint8Array): unknown {
  return packr().unpack(frame);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

/**
 * Decodes a frame into a message, or throws a CodecError naming the problem:
 * a truncated or malformed frame, an unknown message type, or a known type
 * whose fields have the wrong shape. Never returns an unchecked object.
 */
export function decode(frame: Uint8Array): Message {
  // Made outside the try: msgpackr failing to load is no verdict on the frame.
  const codec = packr();
  let value: unknown;
  try {
    value = codec.unpack(frame);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    if (/unexpected end/i.test(text)) {
      throw new CodecError("truncated", `frame of ${frame.length} bytes ends early (${text})`);
    }
    throw new CodecError("malformed", `frame of ${frame.length} bytes does not decode (${text})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CodecError("malformed", `frame holds ${describe(value)}, not a message object`);
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string") {
    throw new CodecError("malformed", "frame has no string `type` field");
  }
  const check = checkFor(type);
  if (check === undefined) {
    throw new CodecError("unknown-type", `unknown message type ${JSON.stringify(type.slice(0, 80))}`);
  }
  if (!check.Check(value)) {
    throw new CodecError("invalid-shape", `${type}${describeShapeError(check.Errors(value))}`);
  }
  return value as Message;
}

/**
 * The most telling first error. A union (a nullable field, a choice of
 * shapes) reports only "Expected union value" at its own path, so look into
 * each branch: a branch whose error is a missing or unexpected property or a
 * wrong literal is a branch the value was never meant for; among the others
 * keep the error that got furthest into the value.
 */
const MISFIT = new Set([ValueErrorType.ObjectRequiredProperty, ValueErrorType.ObjectAdditionalProperties, ValueErrorType.Literal]);

export function deepestError(errors: ValueErrorIterator): ValueError | undefined {
  const first = errors.First();
  if (first === undefined || first.errors.length === 0) return first;
  let best: ValueError | undefined;
  for (const branch of first.errors) {
    const candidate = deepestError(branch);
    if (candidate === undefined || MISFIT.has(candidate.type)) continue;
    if (best === undefined || candidate.path.length > best.path.length) best = candidate;
  }
  // No branch fits: the value is none of the allowed shapes; say so at the union itself.
  return best ?? { ...first, message: "matches none of the allowed shapes" };
}

/** "<path>: <problem>" for a value that failed its schema check. */
export function describeShapeError(errors: ValueErrorIterator): string {
  const error = deepestError(errors);
  return `${error?.path || " (root)"}: ${error?.message ?? "does not match its schema"}`;
}

/** Encodes any structured value (durable records, control payloads) with the same codec settings. */
export function encodeValue(value: unknown): Uint8Array {
  return ownCopy(packr().pack(value));
}
