import { type ActorId, type Observation, objectPrototypeIsClean } from "@kcsim/protocol";
import type { Fate } from "../router/router.js";
import type { ByteReader } from "./byte-reader.js";
import type { ByteWriter } from "./byte-writer.js";
import type { ConnectionRecord, HistoryEvent, ObservationRecord, SendRecord } from "./history-event.js";

/*
 * The history's binary record stream (since history format 3; format 4
 * changed only what a gc.offset-commit holds: every partition of its
 * request, where it held one; format 5 only how a poll is written: one
 * that returned records is its member.records alone, where a member.poll
 * counting them came too, and one that returned none is a member.poll
 * without a count; format 6 only what a member.commit holds: a column
 * pair per topic, where it held an object keyed by partition; format 7
 * only when a member.poll-timer-reset is written: at the top of every pass
 * of poll()'s loop and when a classic member's JoinGroup is answered, the
 * poll timer's every restart, where before a poll()'s return restarted it
 * and the observation marked only a poll() entered after it ran out; format
 * 8 only how a member.records and an observation of a type and a member id
 * alone are written: record kinds of their own, below). Each event is one
 * record: a kind byte, the time as a signed varint delta from the previous
 * event's, then the kind's fields in a fixed order. Observations (free-form
 * JSON values) are written as tagged values; an object is its shape (the
 * list of its keys, defined inline the first time it appears, then named
 * by number) followed by its values. Two kinds of observation, most of a
 * consumer's history, have record kinds of their own when they have
 * exactly their usual fields, in their usual order:
 * - a member.records (one per poll that returned records, a range per
 *   partition: RecordsObservation's type, memberId and ranges of topic,
 *   partition, firstOffset, lastOffset and count, the numbers whole and
 *   lastOffset >= firstOffset >= 0) is its member id, then per range the
 *   topic, partition, firstOffset, lastOffset - firstOffset and count: no
 *   shape to find and no tag per range;
 * - an observation of a type and a member id alone (member.poll-timer-reset
 *   at every pass of a poll's loop, member.poll) is the two strings.
 * Any other is written as an observation like every other, so what is read
 * back is always what was recorded. Short strings are interned: written
 * inline the first time, then named by number. Everything depends only on
 * the sequence of events recorded, so the same events give the same bytes,
 * in every host: the history hash is the SHA-256 of this stream.
 */

enum Kind {
  Send = 1,
  Obs = 2,
  Life = 3,
  Error = 4,
  Reject = 5,
  Lost = 6,
  Conn = 7,
  Records = 8,
  Mark = 9,
}

/** How a string is written: null, inline (not interned), defined (interned from here on), or a reference (id + REF). */
enum Str {
  Null = 0,
  Inline = 1,
  Define = 2,
  Ref = 3,
}

/** Value tags; tags from SMALL_INT on are the integers 0..(255 - SMALL_INT) themselves. */
enum Tag {
  Null = 0,
  False = 1,
  True = 2,
  Undefined = 3,
  Uint = 4,
  NegInt = 5,
  Float = 6,
  String = 7,
  Array = 8,
  Shape = 9,
  NewShape = 10,
  SmallInt = 32,
}
const SMALL_INT_MAX = 255 - Tag.SmallInt;

/** Send record flags: which optional fields follow. */
enum SendFlag {
  Fault = 1,
  Corrupt = 2,
  Reordered = 4,
  Conn = 8,
  Held = 16,
}

/** Strings longer than this are written inline every time (error stacks, log details): interning them saves nothing. */
const MAX_INTERNED_LENGTH = 64;
/** Interned strings and object shapes at most: past that, strings go inline and new shapes list their keys each time. */
const MAX_INTERNED = 1 << 20;

/**
 * How the encoder lists an object's keys. V8 makes a for-in loop fast for
 * objects with named keys only (it reads their values through the shape's
 * enum cache), until one object with index keys ("0", "1": offsets by
 * partition) or with too many keys for a fast shape passes through that
 * loop: from then on the loop is slow for every object. So only objects
 * whose place last held such a plain object go through the for-in loop;
 * the others (and each place's first object) are listed by Object.keys,
 * which yields the same keys in the same order.
 */
enum KeyWalk {
  /** Nothing seen at this place yet: list by Object.keys, and learn. */
  Unknown = 0,
  /** The last object here had a few named keys: the for-in loop. */
  Named = 1,
  /** The last object here had index keys or many keys: Object.keys. */
  Listed = 2,
}

/** More keys than this and an object built key by key may have a slow shape, which would slow the for-in loop down. */
const MAX_NAMED_KEYS = 16;

/**
 * A node of the shape tree: the keys seen so far along the path from the root, and the shape's id once used.
 * A node holds only its own key; the list is made when an object of that shape is written (a node per key
 * holding the whole list would cost an object with k keys k * k / 2 slots).
 */
interface ShapeNode {
  id: number;
  readonly parent: ShapeNode | null;
  readonly key: string;
  /** The keys from the root, once listed. */
  keys: readonly string[] | null;
  readonly next: Map<string, ShapeNode>;
  /** The last key followed from here and where it led (objects of one kind take the same path every time). */
  lastKey: string;
  lastNext: ShapeNode | null;
  /** For the objects held in this shape's values (directly or in arrays), by value position: how to list their keys. */
  readonly walks: KeyWalk[];
}

const shapeNode = (parent: ShapeNode | null, key: string): ShapeNode => ({
  id: -1,
  parent,
  key,
  keys: parent === null ? [] : null,
  next: new Map(),
  lastKey: "",
  lastNext: null,
  walks: [],
});

/** The keys of a node's shape, from the root. */
function keysOf(node: ShapeNode): readonly string[] {
  if (node.keys !== null) return node.keys;
  const keys: string[] = [];
  for (let at: ShapeNode | null = node; at !== null && at.parent !== null; at = at.parent) keys.push(at.key);
  node.keys = keys.reverse();
  return node.keys;
}

/** The node after `node` for `key`, made on first use; remembered as `node`'s last step. */
function stepShape(node: ShapeNode, key: string): ShapeNode {
  let next = node.next.get(key);
  if (next === undefined) {
    next = shapeNode(node, key);
    node.next.set(key, next);
  }
  node.lastKey = key;
  node.lastNext = next;
  return next;
}

/** Object keys holding these are left out, as JSON leaves them out. */
const skipped = (item: unknown): boolean => item === undefined || typeof item === "function" || typeof item === "symbol";

/** Whether a key may be an array index (V8 keeps those apart from named keys): it starts with a digit. */
const indexLike = (key: string): boolean => {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57;
};

/** A field whose string often repeats from one record to the next: its last string and that string's reference (-1: none). */
interface RepeatedString {
  last: string;
  ref: number;
}

/** A member.records observation as usualRecords finds it (types, not interfaces, so they are JSON values). */
type UsualRecords = {
  readonly type: "member.records";
  readonly memberId: string;
  readonly ranges: readonly UsualRange[];
};

type UsualRange = {
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly count: number;
};

const RECORDS_KEYS: readonly string[] = ["type", "memberId", "ranges"];
/** A member's mark: an observation of a type and a member id alone (member.poll-timer-reset, member.poll). */
const MARK_KEYS: readonly string[] = ["type", "memberId"];
const RANGE_KEYS: readonly string[] = ["topic", "partition", "firstOffset", "lastOffset", "count"];

/** Whether a plain object's enumerable keys are exactly `keys`, in that order (Object.prototype must have none). */
function keysAre(value: object, keys: readonly string[]): boolean {
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let i = 0;
  for (const key in value) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

const whole = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Whether a member.records observation is exactly what the Records kind writes and reads back: its keys and
 * each range's keys in their usual order, the member id and topics strings, the numbers whole and at least 0,
 * no range ending before it starts. Anything else (an extra key, a key left out, another order) is written as
 * an observation like any other.
 */
function usualRecords(o: object): o is UsualRecords {
  if (!keysAre(o, RECORDS_KEYS)) return false;
  const { memberId, ranges } = o as { memberId: unknown; ranges: unknown };
  if (typeof memberId !== "string" || !Array.isArray(ranges)) return false;
  for (let i = 0; i < ranges.length; i++) {
    const range: unknown = ranges[i];
    if (typeof range !== "object" || range === null || !keysAre(range, RANGE_KEYS)) return false;
    const { topic, partition, firstOffset, lastOffset, count } = range as Record<string, unknown>;
    if (typeof topic !== "string" || !whole(partition) || !whole(firstOffset) || !whole(lastOffset) || !whole(count)) return false;
    if (lastOffset < firstOffset) return false;
  }
  return true;
}

/**
 * The strings and object shapes a stream has defined so far, by id: the
 * encoder appends to them, and a decoder of the same stream (in this
 * process) looks references up in them.
 */
export class HistoryTables {
  readonly strings: string[] = [];
  readonly stringIds = new Map<string, number>();
  readonly shapes: (readonly string[])[] = [];
  readonly shapeRoot: ShapeNode = shapeNode(null, "");
}

/** Writes events into a ByteWriter as records of the binary stream. */
export class HistoryEncoder {
  readonly tables: HistoryTables;
  #lastT = 0;
  /**
   * Values of the objects being written, collected while their shape is found: a stack shared by nested
   * objects, `#top` its height (kept apart from the array's length: shrinking an array is a runtime call).
   */
  readonly #values: unknown[] = [];
  #top = 0;
  /** How to list the keys of the observations themselves (see KeyWalk). */
  readonly #observationWalk: KeyWalk[] = [KeyWalk.Unknown];
  /** The last send's type and fate, and a poll's last topic (records repeat them): no table lookup when they repeat. */
  readonly #sendType: RepeatedString = { last: "", ref: -1 };
  readonly #sendFate: RepeatedString = { last: "", ref: -1 };
  readonly #rangeTopic: RepeatedString = { last: "", ref: -1 };
  /** Whether Object.prototype has no enumerable keys (checked per observation): then for-in of a plain object yields own keys only. */
  #plainPrototype = false;

  constructor(tables: HistoryTables = new HistoryTables()) {
    this.tables = tables;
  }

  /** A new block starts: its first event's time is written whole, so each block decodes on its own. */
  startBlock(): void {
    this.#lastT = 0;
  }

  encode(event: HistoryEvent, out: ByteWriter): void {
    const t = event.t;
    switch (event.ev) {
      case "send":
        out.u8(Kind.Send);
        this.#time(t, out);
        this.#send(event, out);
        return;
      case "obs": {
        const o = event.o;
        this.#plainPrototype = objectPrototypeIsClean();
        if (this.#plainPrototype) {
          if (o.type === "member.records" && usualRecords(o)) {
            this.#head(Kind.Records, t, event.actor, out);
            this.#records(o, out);
            return;
          }
          if (typeof o.type === "string" && typeof o.memberId === "string" && keysAre(o, MARK_KEYS)) {
            this.#head(Kind.Mark, t, event.actor, out);
            this.#string(o.type, out);
            this.#string(o.memberId, out);
            return;
          }
        }
        this.#head(Kind.Obs, t, event.actor, out);
        this.#value(o, out, this.#observationWalk, 0);
        return;
      }
      case "life":
        this.#head(Kind.Life, t, event.actor, out);
        this.#string(event.what, out);
        this.#string(event.detail, out);
        return;
      case "error":
        this.#head(Kind.Error, t, event.actor, out);
        this.#string(event.during, out);
        this.#string(event.message, out);
        this.#string(event.stack, out);
        return;
      case "reject":
        this.#head(Kind.Reject, t, event.actor, out);
        this.#string(event.from, out);
        this.#string(event.reason, out);
        this.#string(event.detail, out);
        return;
      case "lost":
        this.#head(Kind.Lost, t, event.actor, out);
        this.#string(event.from, out);
        this.#string(event.type, out);
        this.#string(event.why, out);
        return;
      case "conn":
        out.u8(Kind.Conn);
        this.#time(t, out);
        this.#connection(event, out);
        return;
    }
  }

  /** What every record of an actor's event starts with: its kind, its time and the actor. */
  #head(kind: Kind, t: number, actor: string, out: ByteWriter): void {
    out.u8(kind);
    this.#time(t, out);
    this.#string(actor, out);
  }

  #time(t: number, out: ByteWriter): void {
    out.int(t - this.#lastT);
    this.#lastT = t;
  }

  #send(event: SendRecord, out: ByteWriter): void {
    this.#string(event.from, out);
    this.#string(event.to, out);
    this.#repeated(this.#sendType, event.type, out);
    out.uint(event.bytes);
    this.#repeated(this.#sendFate, event.fate, out);
    out.uint(event.at.length);
    for (const at of event.at) out.int(at - event.t);
    const flags =
      (event.fault !== undefined ? SendFlag.Fault : 0) |
      (event.corrupt !== undefined ? SendFlag.Corrupt : 0) |
      (event.reordered === true ? SendFlag.Reordered : 0) |
      (event.conn !== undefined ? SendFlag.Conn : 0) |
      (event.held === true ? SendFlag.Held : 0);
    out.u8(flags);
    if (event.fault !== undefined) this.#string(event.fault, out);
    if (event.corrupt !== undefined) this.#string(event.corrupt, out);
    if (event.conn !== undefined) out.int(event.conn);
  }

  /** A member.records of the usual shape (see usualRecords): no tag or shape per value, the topic's reference reused. */
  #records(o: UsualRecords, out: ByteWriter): void {
    this.#string(o.memberId, out);
    const ranges = o.ranges;
    out.uint(ranges.length);
    for (let i = 0; i < ranges.length; i++) {
      const range = ranges[i] as UsualRange;
      this.#repeated(this.#rangeTopic, range.topic, out);
      out.uint(range.partition);
      out.uint(range.firstOffset);
      out.uint(range.lastOffset - range.firstOffset);
      out.uint(range.count);
    }
  }

  #connection(event: ConnectionRecord, out: ByteWriter): void {
    this.#string(event.actor, out);
    this.#string(event.peer, out);
    out.int(event.gen);
    this.#string(event.what, out);
    this.#string(event.connection, out);
    this.#string(event.reason, out);
    if (event.at === undefined) out.u8(0);
    else {
      out.u8(1);
      out.int(event.at[0] - event.t);
      out.int(event.at[1] - event.t);
    }
  }

  /** Writes a string as #string does, reusing the slot's reference when it is the slot's last string. */
  #repeated(slot: RepeatedString, value: string, out: ByteWriter): void {
    if (value === slot.last && slot.ref >= 0) out.uint(slot.ref);
    else {
      slot.last = value;
      slot.ref = this.#string(value, out);
    }
  }

  /** Writes a string; returns the reference that names it from now on (its id + Str.Ref), or -1 if it is not interned. */
  #string(value: string | null, out: ByteWriter): number {
    if (value === null) {
      out.u8(Str.Null);
      return -1;
    }
    const tables = this.tables;
    const id = tables.stringIds.get(value);
    if (id !== undefined) {
      out.uint(id + Str.Ref);
      return id + Str.Ref;
    }
    let ref = -1;
    if (value.length <= MAX_INTERNED_LENGTH && tables.strings.length < MAX_INTERNED) {
      ref = tables.strings.length + Str.Ref;
      tables.stringIds.set(value, tables.strings.length);
      tables.strings.push(value);
      out.u8(Str.Define);
    } else out.u8(Str.Inline);
    out.string(value);
    return ref;
  }

  /** Writes a value; an object in it is listed as `walks[place]` says (it is the value at `place` of its parent's shape). */
  #value(value: unknown, out: ByteWriter, walks: KeyWalk[], place: number): void {
    switch (typeof value) {
      case "number":
        if (Number.isSafeInteger(value)) {
          if (value >= 0) {
            if (value <= SMALL_INT_MAX) out.u8(Tag.SmallInt + value);
            else {
              out.u8(Tag.Uint);
              out.uint(value);
            }
          } else {
            out.u8(Tag.NegInt);
            out.uint(-value);
          }
        } else {
          out.u8(Tag.Float);
          out.float64(value);
        }
        return;
      case "string":
        out.u8(Tag.String);
        this.#string(value, out);
        return;
      case "boolean":
        out.u8(value ? Tag.True : Tag.False);
        return;
      case "object":
        if (value === null) out.u8(Tag.Null);
        else if (Array.isArray(value)) {
          out.u8(Tag.Array);
          out.uint(value.length);
          for (const item of value) this.#value(item, out, walks, place);
        } else this.#object(value as Record<string, unknown>, out, walks, place);
        return;
      default:
        // undefined, functions and symbols: JSON writes null in an array (object keys holding them are skipped).
        out.u8(Tag.Undefined);
    }
  }

  #object(value: Record<string, unknown>, out: ByteWriter, walks: KeyWalk[], place: number): void {
    const base = this.#top;
    const plain = Object.getPrototypeOf(value) === Object.prototype;
    const node = plain && walks[place] === KeyWalk.Named ? this.#walkNamed(value) : this.#walkListed(value, plain, walks, place);
    const top = this.#top;
    const shapes = this.tables.shapes;
    if (node.id >= 0) {
      out.u8(Tag.Shape);
      out.uint(node.id);
    } else {
      out.u8(Tag.NewShape);
      const keys = keysOf(node);
      if (shapes.length < MAX_INTERNED) {
        node.id = shapes.length;
        shapes.push(keys);
      }
      out.uint(keys.length);
      for (const key of keys) this.#string(key, out);
    }
    const values = this.#values;
    for (let i = base; i < top; i++) this.#value(values[i], out, node.walks, i - base);
    this.#top = base;
  }

  /** Pushes a plain object's values on the stack and returns its shape node, listing its keys with for-in (see KeyWalk). */
  #walkNamed(value: Record<string, unknown>): ShapeNode {
    const values = this.#values;
    let top = this.#top;
    let node = this.tables.shapeRoot;
    const ownOnly = this.#plainPrototype;
    for (const key in value) {
      if (!ownOnly && !Object.hasOwn(value, key)) continue;
      const item = value[key];
      if (skipped(item)) continue;
      values[top++] = item;
      node = node.lastKey === key && node.lastNext !== null ? node.lastNext : stepShape(node, key);
    }
    this.#top = top;
    return node;
  }

  /**
   * #walkNamed for any object, by Object.keys (its own keys, in for-in's order); notes in `walks[place]` which
   * walk suits the next object there: for-in if this one is `plain` (its prototype is Object.prototype: a
   * null-prototype object has a slow shape from the start) with a few named keys.
   */
  #walkListed(value: Record<string, unknown>, plain: boolean, walks: KeyWalk[], place: number): ShapeNode {
    const values = this.#values;
    let top = this.#top;
    let node = this.tables.shapeRoot;
    const keys = Object.keys(value);
    let named = plain && keys.length <= MAX_NAMED_KEYS;
    for (const key of keys) {
      if (indexLike(key)) named = false;
      const item = value[key];
      if (skipped(item)) continue;
      values[top++] = item;
      node = node.lastKey === key && node.lastNext !== null ? node.lastNext : stepShape(node, key);
    }
    walks[place] = named ? KeyWalk.Named : KeyWalk.Listed;
    this.#top = top;
    return node;
  }
}

/** Reads records back into events, with the tables of the encoder that wrote them. */
export class HistoryDecoder {
  readonly #tables: HistoryTables;

  constructor(tables: HistoryTables) {
    this.#tables = tables;
  }

  /** The next event of `input`; `lastT` is the time of the event before it (0 at a block's start). */
  decode(input: ByteReader, lastT: number): HistoryEvent {
    const kind = input.u8();
    const t = lastT + input.int();
    switch (kind) {
      case Kind.Send:
        return this.#send(t, input);
      case Kind.Obs: {
        const actor = this.#string(input) as ActorId;
        const o = this.#value(input) as Observation;
        const event: ObservationRecord = { t, ev: "obs", actor, o };
        return event;
      }
      case Kind.Life:
        return { t, ev: "life", actor: this.#str(input), what: this.#str(input), detail: this.#string(input) };
      case Kind.Error:
        return { t, ev: "error", actor: this.#str(input), during: this.#str(input), message: this.#str(input), stack: this.#str(input) };
      case Kind.Reject:
        return { t, ev: "reject", actor: this.#str(input), from: this.#str(input), reason: this.#str(input), detail: this.#str(input) };
      case Kind.Lost:
        return { t, ev: "lost", actor: this.#str(input), from: this.#str(input), type: this.#str(input), why: this.#str(input) };
      case Kind.Conn:
        return this.#connection(t, input);
      case Kind.Records:
        return this.#records(t, input);
      case Kind.Mark: {
        const actor = this.#str(input) as ActorId;
        const o = { type: this.#str(input), memberId: this.#str(input) };
        return { t, ev: "obs", actor, o };
      }
      default:
        throw new RangeError(`unknown history record kind ${kind}`);
    }
  }

  #send(t: number, input: ByteReader): SendRecord {
    const from = this.#str(input);
    const to = this.#str(input);
    const type = this.#str(input);
    const bytes = input.uint();
    const fate = this.#str(input) as Fate;
    const count = input.uint();
    const at: number[] = [];
    for (let i = 0; i < count; i++) at.push(t + input.int());
    const flags = input.u8();
    const record: { -readonly [K in keyof SendRecord]: SendRecord[K] } = { t, ev: "send", from, to, type, bytes, fate, at };
    if (flags & SendFlag.Fault) record.fault = this.#str(input);
    if (flags & SendFlag.Corrupt) record.corrupt = this.#str(input) as "truncate" | "garbage";
    if (flags & SendFlag.Reordered) record.reordered = true;
    if (flags & SendFlag.Conn) record.conn = input.int();
    if (flags & SendFlag.Held) record.held = true;
    return record;
  }

  #records(t: number, input: ByteReader): ObservationRecord {
    const actor = this.#str(input) as ActorId;
    const memberId = this.#str(input);
    const count = input.uint();
    const ranges: UsualRange[] = [];
    for (let i = 0; i < count; i++) {
      const topic = this.#str(input);
      const partition = input.uint();
      const firstOffset = input.uint();
      const lastOffset = firstOffset + input.uint();
      ranges.push({ topic, partition, firstOffset, lastOffset, count: input.uint() });
    }
    const o: UsualRecords = { type: "member.records", memberId, ranges };
    return { t, ev: "obs", actor, o };
  }

  #connection(t: number, input: ByteReader): ConnectionRecord {
    const actor = this.#str(input);
    const peer = this.#str(input);
    const gen = input.int();
    const what = this.#str(input);
    const connection = this.#str(input);
    const reason = this.#string(input);
    if (input.u8() === 0) return { t, ev: "conn", actor, peer, gen, what, connection, reason };
    const at: [number, number] = [t + input.int(), t + input.int()];
    return { t, ev: "conn", actor, peer, gen, what, connection, reason, at };
  }

  #str(input: ByteReader): string {
    const value = this.#string(input);
    if (value === null) throw new RangeError("history record: a string expected, null found");
    return value;
  }

  #string(input: ByteReader): string | null {
    const head = input.uint();
    if (head >= Str.Ref) {
      const value = this.#tables.strings[head - Str.Ref];
      if (value === undefined) throw new RangeError(`history record: unknown string ${head - Str.Ref}`);
      return value;
    }
    if (head === Str.Null) return null;
    return input.string();
  }

  #value(input: ByteReader): unknown {
    const tag = input.u8();
    if (tag >= Tag.SmallInt) return tag - Tag.SmallInt;
    switch (tag) {
      case Tag.Null:
        return null;
      case Tag.False:
        return false;
      case Tag.True:
        return true;
      case Tag.Undefined:
        return undefined;
      case Tag.Uint:
        return input.uint();
      case Tag.NegInt:
        return -input.uint();
      case Tag.Float:
        return input.float64();
      case Tag.String:
        return this.#string(input);
      case Tag.Array: {
        const length = input.uint();
        const items: unknown[] = [];
        for (let i = 0; i < length; i++) items.push(this.#value(input));
        return items;
      }
      case Tag.Shape: {
        const id = input.uint();
        const keys = this.#tables.shapes[id];
        if (keys === undefined) throw new RangeError(`history record: unknown object shape ${id}`);
        return this.#fields(keys, input);
      }
      case Tag.NewShape: {
        const count = input.uint();
        const keys: string[] = [];
        for (let i = 0; i < count; i++) keys.push(this.#str(input));
        return this.#fields(keys, input);
      }
      default:
        throw new RangeError(`history record: unknown value tag ${tag}`);
    }
  }

  #fields(keys: readonly string[], input: ByteReader): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    for (const key of keys) {
      const value = this.#value(input);
      // An own "__proto__" key (a topic may be named so) must stay a key, not replace the prototype.
      if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      else object[key] = value;
    }
    return object;
  }
}
