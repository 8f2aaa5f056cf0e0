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
 *   {"r":"down","actor":..,"t":..,"why":..,"carry":{..}}     its worker was terminated or died
 *   {"r":"up","actor":..,"t":..,"carry":{..}}                 rebuilt in a new worker from this carry
 *
 * A "route" line is one routing decision (the send's virtual time, its
 * sender sequence number and the router's verdict). A "run" line is one
 * event an actor's cell handled, at the virtual time it handled it; a
 * delivery carries the frame as delivered (after any corruption), or the
 * message object itself for a run without the codec. Per actor, "run",
 * "down" and "up" lines are in the order they happened.
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
  readonly carry: CellCarry;
}

export interface UpEntry {
  readonly r: "up";
  readonly actor: ActorId;
  readonly t: Micros;
  readonly carry: CellCarry;
}

export type RecordingEntry = RouteEntry | RunEntry | DownEntry | UpEntry;

export interface Recording {
  readonly header: RecordingHeader;
  readonly entries: readonly RecordingEntry[];
}

/** A recording file that cannot be replayed: one line saying why and where. */
export class RecordingError extends Error {
  override readonly name = "RecordingError";
}

/** Collects a recording's lines as the run goes (serialised once, at the end). */
export class RecordingWriter {
  readonly header: RecordingHeader;
  readonly entries: RecordingEntry[] = [];
  readonly #actors: ActorSpec[];

  constructor(header: RecordingHeader) {
    this.#actors = [...header.spec.actors];
    this.header = { ...header, spec: { ...header.spec, actors: this.#actors } };
  }

  /** An actor the run added after it began (a real client kcsim serve accepted): the header's spec lists it. */
  addActor(actor: ActorSpec): void {
    this.#actors.push(actor);
  }

  add(entry: RecordingEntry): void {
    this.entries.push(entry);
  }

  recording(): Recording {
    return { header: this.header, entries: this.entries };
  }

  text(): string {
    const lines = [JSON.stringify(this.header)];
    for (const entry of this.entries) lines.push(JSON.stringify(entry));
    return `${lines.join("\n")}\n`;
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

/** Parses and checks a recording's text; `source` names the file in error messages. */
export function parseRecording(text: string, source: string): Recording {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const parse = (line: string, number: number): unknown => {
    try {
      return JSON.parse(line);
    } catch (error) {
      throw new RecordingError(`${source}:${number}: invalid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  if (lines.length === 0) throw new RecordingError(`${source}: empty file, not a kcsim recording`);
  const header = parse(lines[0] as string, 1);
  if (!isObject(header) || header.kcsim !== "recording")
    throw new RecordingError(`${source}:1: not a kcsim recording (no {"kcsim":"recording"} header)`);
  if (header.format !== 1)
    throw new RecordingError(`${source}:1: recording format ${JSON.stringify(header.format)} is not supported (1 is)`);
  const spec = header.spec;
  if (!isObject(spec) || !Array.isArray(spec.actors) || typeof spec.seed !== "number")
    throw new RecordingError(`${source}:1: the header has no simulation spec`);
  const entries = lines.slice(1).map((line, i) => checkEntry(parse(line, i + 2), `${source}:${i + 2}`));
  return { header: header as unknown as RecordingHeader, entries };
}
