import { closeSync, openSync, writeSync } from "node:fs";
import type { ActorId, JsonValue, Micros } from "@kcsim/protocol";
import type { CellCarry } from "../../kernel/cell-carry.js";
import type { ControlAction } from "../../kernel/event.js";
import type { ActorSpec, SimulationSpec } from "../../kernel/simulation-spec.js";
import type { RouteDecision } from "../../router/router.js";

/**
 * The recording of a realtime run (`recording.jsonl` in the run directory):
 * a header line, then one JSON line per fact, in the order the main thread
 * learned them. All times are virtual microseconds.
 *
 *   {"kcsim":"recording","format":1,"host":"realtime","timeScale":..,"registryModule":..,"spec":{..}}
 *   {"r":"route","t":..,"from":..,"to":..,"seq":..,"type":..,"bytes":..,"fate":..,"at":[..],"fault"?,"corrupt"?,"reordered"?}
 *   {"r":"run","actor":..,"t":..,"e":{"k":"deliver","origin":..,"seq":..,"sub":..,"from":..,"type":..,"frame":"<base64>","conn"?:..}}
 *   {"r":"run","actor":..,"t":..,"e":{"k":"timer","name":..,"seq":..,"due":..}}
 *   {"r":"run","actor":..,"t":..,"e":{"k":"control","origin":..,"seq":..,"sub":..,"control":{..}}}
 *   {"r":"down","actor":..,"t":..,"why":..,"carry":{..},"unknownState"?:true}   its worker was terminated or died
 *   {"r":"up","actor":..,"t":..,"carry":{..}}                 rebuilt in a new worker from this carry
 *   {"r":"end","t":..,"entries":..,"historyHash":..,"interrupted"?:true}   the last line: the run finished
 *
 * A "route" line is one routing decision (the send's virtual time, its
 * sender sequence number and the router's verdict). A "run" line is one
 * event an actor's cell handled, at the virtual time it handled it; a
 * delivery carries the frame as delivered (after any corruption), or the
 * message object itself for a run without the codec. Per actor, "run",
 * "down" and "up" lines are in the order they happened.
 *
 * The file is written as the run goes (a run cut short keeps what it
 * recorded); the "end" line is written last, once the run has finished or
 * was interrupted and stopped cleanly. A recording without it is
 * incomplete, and `replay` refuses it; its history hash ties it to the
 * run's summary.json.
 */
export interface RecordingHeader {
  readonly kcsim: "recording";
  readonly format: 1;
  readonly host: "realtime";
  readonly timeScale: number;
  readonly registryModule: string | null;
  readonly spec: SimulationSpec;
}

export interface RouteEntry {
  readonly r: "route";
  readonly t: Micros;
  readonly from: ActorId;
  readonly to: ActorId;
  readonly seq: number;
  readonly type: string;
  readonly bytes: number;
  readonly fate: RouteDecision["fate"];
  readonly at: readonly Micros[];
  readonly fault?: string;
  readonly corrupt?: "truncate" | "garbage";
  readonly reordered?: true;
}

export type RunEvent =
  | {
      readonly k: "deliver";
      readonly origin: string;
      readonly seq: number;
      readonly sub: number;
      readonly from: ActorId;
      readonly type: string;
      readonly frame?: string;
      readonly message?: JsonValue;
      /** The connection it rode (see DeliveryEvent.conn); absent = none. */
      readonly conn?: number;
      /** Its connection had broken before it arrived: the actor only recorded it as lost. */
      readonly lostWithBreak?: true;
    }
  | { readonly k: "timer"; readonly name: string; readonly seq: number; readonly due: Micros }
  | { readonly k: "control"; readonly origin: string; readonly seq: number; readonly sub: number; readonly control: ControlAction };

export interface RunEntry {
  readonly r: "run";
  readonly actor: ActorId;
  readonly t: Micros;
  readonly e: RunEvent;
}

export interface DownEntry {
  readonly r: "down";
  readonly actor: ActorId;
  readonly t: Micros;
  readonly why: string;
  /** What the actor's stand-in and any restart start from. */
  readonly carry: CellCarry;
  /**
   * The worker never reported the actor's state before it went (a worker that died or was crashed before its
   * first batch reached this thread): `carry` is a fresh incarnation's, not the state the actor died in.
   */
  readonly unknownState?: true;
}

export interface UpEntry {
  readonly r: "up";
  readonly actor: ActorId;
  readonly t: Micros;
  readonly carry: CellCarry;
}

export type RecordingEntry = RouteEntry | RunEntry | DownEntry | UpEntry;

/** The last line of a complete recording. */
export interface RecordingEnd {
  readonly r: "end";
  /** The virtual time the run ended (earlier than the spec's duration when it was interrupted). */
  readonly t: Micros;
  /** The entries before this line. */
  readonly entries: number;
  /** The run's history hash: the one in the summary.json of the same run. */
  readonly historyHash: string;
  readonly interrupted?: true;
}

export interface Recording {
  readonly header: RecordingHeader;
  readonly entries: readonly RecordingEntry[];
  /** Null while the run goes on (and in a recording whose run never finished). */
  readonly end: RecordingEnd | null;
}

/** A recording file that cannot be replayed: one line saying why and where. */
export class RecordingError extends Error {
  override readonly name = "RecordingError";
}

/** Lines are written to the file in chunks of about this many characters. */
const FLUSH_CHARS = 256 * 1024;

/**
 * Collects a recording as the run goes. Given a file, it streams the lines
 * there (header first, the end line last) and keeps none in memory;
 * without one it keeps the entries (tests, the library's RealtimeRunResult).
 */
export class RecordingWriter {
  readonly header: RecordingHeader;
  readonly entries: RecordingEntry[] = [];
  #fd: number | null = null;
  #pending: string[] = [];
  #pendingChars = 0;
  #count = 0;
  #end: RecordingEnd | null = null;
  readonly #actors: ActorSpec[];

  constructor(header: RecordingHeader, file: string | null = null) {
    this.#actors = [...header.spec.actors];
    this.header = { ...header, spec: { ...header.spec, actors: this.#actors } };
    if (file !== null) {
      this.#fd = openSync(file, "w");
      this.#write(JSON.stringify(header));
      this.flush();
    }
  }

  /**
   * An actor the run added after it began (a real client kcsim serve accepted): the header's spec lists
   * it; a streamed recording, whose header is written already, gets an "actor" line that parseRecording
   * folds back into the header.
   */
  addActor(actor: ActorSpec): void {
    this.#actors.push(actor);
    if (this.#fd !== null && this.#end === null) {
      this.#count++;
      this.#write(JSON.stringify({ r: "actor", t: actor.startAtUs, actor }));
    }
  }

  add(entry: RecordingEntry): void {
    if (this.#end !== null) return; // the run is over: a straggler from a dying worker is not part of it
    this.#count++;
    if (this.#fd === null) this.entries.push(entry);
    else this.#write(JSON.stringify(entry));
  }

  /** Writes buffered lines to the file. */
  flush(): void {
    if (this.#fd === null || this.#pending.length === 0) return;
    writeSync(this.#fd, `${this.#pending.join("\n")}\n`);
    this.#pending = [];
    this.#pendingChars = 0;
  }

  /** Seals the recording with its end line (and closes the file). */
  finish(end: { readonly t: Micros; readonly historyHash: string; readonly interrupted: boolean }): void {
    if (this.#end !== null) return;
    this.#end = {
      r: "end",
      t: end.t,
      entries: this.#count,
      historyHash: end.historyHash,
      ...(end.interrupted ? { interrupted: true as const } : {}),
    };
    if (this.#fd !== null) {
      this.#write(JSON.stringify(this.#end));
      this.flush();
      closeSync(this.#fd);
      this.#fd = null;
    }
  }

  /** Closes the file without an end line (a run that failed): what it holds is kept, marked incomplete by the missing end. */
  abandon(): void {
    if (this.#fd === null) return;
    this.flush();
    closeSync(this.#fd);
    this.#fd = null;
  }

  recording(): Recording {
    return { header: this.header, entries: this.entries, end: this.#end };
  }

  /** The recording as one text (kept entries only: a streamed recording is in its file). */
  text(): string {
    const lines = [JSON.stringify(this.header)];
    for (const entry of this.entries) lines.push(JSON.stringify(entry));
    if (this.#end !== null) lines.push(JSON.stringify(this.#end));
    return `${lines.join("\n")}\n`;
  }

  #write(line: string): void {
    this.#pending.push(line);
    this.#pendingChars += line.length;
    if (this.#pendingChars >= FLUSH_CHARS) this.flush();
  }
}

export function frameToText(frame: Uint8Array): string {
  return Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).toString("base64");
}

export function frameFromText(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "base64"));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function checkEntry(value: unknown, where: string): RecordingEntry {
  if (!isObject(value)) throw new RecordingError(`${where}: not a JSON object`);
  const kind = value.r;
  if (kind !== "route" && kind !== "run" && kind !== "down" && kind !== "up")
    throw new RecordingError(`${where}: unknown entry "r": ${JSON.stringify(kind)}`);
  if (typeof value.t !== "number") throw new RecordingError(`${where}: "t" must be a number`);
  if (kind === "route") {
    if (typeof value.from !== "string" || typeof value.to !== "string" || typeof value.seq !== "number" || !Array.isArray(value.at))
      throw new RecordingError(`${where}: a route needs from, to, seq and at`);
  } else {
    if (typeof value.actor !== "string") throw new RecordingError(`${where}: "actor" must be a string`);
    if (kind === "run") {
      const e = value.e;
      if (!isObject(e) || (e.k !== "deliver" && e.k !== "timer" && e.k !== "control"))
        throw new RecordingError(`${where}: "e" must be a deliver, timer or control event`);
      if (e.k === "deliver" && typeof e.frame !== "string" && e.message === undefined)
        throw new RecordingError(`${where}: a delivery needs a frame or a message`);
    } else if (!isObject(value.carry) || !Array.isArray(value.carry.rng)) {
      throw new RecordingError(`${where}: "carry" must be a cell carry`);
    }
  }
  return value as unknown as RecordingEntry;
}

function checkEnd(value: unknown, where: string, entries: number): RecordingEnd {
  if (!isObject(value) || typeof value.t !== "number" || typeof value.entries !== "number" || typeof value.historyHash !== "string")
    throw new RecordingError(`${where}: the end line needs t, entries and historyHash`);
  if (value.entries !== entries)
    throw new RecordingError(`${where}: the end line counts ${value.entries} entries, the file holds ${entries}: the recording is damaged`);
  return value as unknown as RecordingEnd;
}

/** The header's spec: what a replay builds its actors from, checked like any other input. */
function checkHeaderSpec(spec: unknown, where: string): void {
  if (!isObject(spec) || !Array.isArray(spec.actors)) throw new RecordingError(`${where}: the header has no simulation spec`);
  if (typeof spec.seed !== "number" || !Number.isSafeInteger(spec.seed) || spec.seed < 0)
    throw new RecordingError(`${where}: the header's seed must be a non-negative safe integer, got ${JSON.stringify(spec.seed)}`);
  if (typeof spec.durationUs !== "number" || !Number.isSafeInteger(spec.durationUs) || spec.durationUs <= 0)
    throw new RecordingError(`${where}: the header's durationUs must be a positive safe integer, got ${JSON.stringify(spec.durationUs)}`);
  spec.actors.forEach((actor: unknown, i: number) => {
    if (!isObject(actor) || typeof actor.id !== "string" || typeof actor.kind !== "string" || typeof actor.startAtUs !== "number")
      throw new RecordingError(`${where}: the header's spec.actors[${i}] needs id, kind and startAtUs`);
  });
  if (!isObject(spec.restartPolicy)) throw new RecordingError(`${where}: the header's spec has no restartPolicy`);
}

/** Parses and checks a recording's text; `source` names the file in error messages. Only a complete recording passes. */
export function parseRecording(text: string, source: string): Recording {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const parse = (line: string, number: number): unknown => {
    try {
      return JSON.parse(line);
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).split("\n")[0];
      throw new RecordingError(`${source}:${number}: invalid JSON (${message})`);
    }
  };
  if (lines.length === 0) throw new RecordingError(`${source}: empty file, not a kcsim recording`);
  const header = parse(lines[0] as string, 1);
  if (!isObject(header) || header.kcsim !== "recording")
    throw new RecordingError(`${source}:1: not a kcsim recording (no {"kcsim":"recording"} header)`);
  if (header.format !== 1)
    throw new RecordingError(`${source}:1: recording format ${JSON.stringify(header.format)} is not supported (1 is)`);
  if (typeof header.timeScale !== "number" || !(header.timeScale > 0))
    throw new RecordingError(`${source}:1: the header's timeScale must be a positive number`);
  if (header.registryModule !== null && typeof header.registryModule !== "string")
    throw new RecordingError(`${source}:1: the header's registryModule must be null or a path`);
  checkHeaderSpec(header.spec, `${source}:1`);
  const last = lines.length > 1 ? parse(lines[lines.length - 1] as string, lines.length) : null;
  const ended = isObject(last) && last.r === "end";
  const body = lines.slice(1, ended ? -1 : undefined);
  if (!ended) {
    throw new RecordingError(
      `${source}: incomplete recording: it has no end line (its run was killed before it finished), ${body.length} entries recorded`,
    );
  }
  // "actor" lines: actors a streamed run added after its header was written (kcsim serve's real clients).
  const added: ActorSpec[] = [];
  const entries: RecordingEntry[] = [];
  body.forEach((line, i) => {
    const value = parse(line, i + 2);
    if (isObject(value) && value.r === "actor") {
      const actor = value.actor;
      if (!isObject(actor) || typeof actor.id !== "string" || typeof actor.kind !== "string" || typeof actor.startAtUs !== "number")
        throw new RecordingError(`${source}:${i + 2}: an "actor" line needs an actor with id, kind and startAtUs`);
      added.push(actor as unknown as ActorSpec);
    } else entries.push(checkEntry(value, `${source}:${i + 2}`));
  });
  const end = checkEnd(last, `${source}:${lines.length}`, entries.length + added.length);
  if (entries.length === 0) throw new RecordingError(`${source}: the recording holds no event: nothing to replay`);
  const parsed = header as unknown as RecordingHeader;
  const full = added.length === 0 ? parsed : { ...parsed, spec: { ...parsed.spec, actors: [...parsed.spec.actors, ...added] } };
  return { header: full, entries, end };
}
