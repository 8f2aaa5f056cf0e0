import { type ActorId, type ActorLogger, decode, type JsonValue, type Message, type Micros, type Observation } from "@kcsim/protocol";
import { InlineHost } from "../hosts/inline-host.js";
import type { CellSink, LifecycleEvent } from "../kernel/actor-cell.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { ConnectionEvent } from "../kernel/connection-endpoint.js";
import type { ArmedTimer, Payload } from "../kernel/event.js";
import type { SimulationCore } from "../kernel/simulation-core.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import type { ChainEnrichment } from "./causal-chain.js";
import type { ChainLogLine } from "./report-data.js";

/** How much of a payload's JSON the panel shows. */
const PAYLOAD_LIMIT = 3000;

export interface ChainReplayInputs {
  readonly spec: SimulationSpec;
  readonly registry: ActorRegistry;
  /** Run until here (the latest chain window's end). */
  readonly horizonUs: Micros;
  /** History indexes of the sends whose payloads to keep, with what the history says of each. */
  readonly sends: ReadonlyMap<number, { readonly from: string; readonly to: string; readonly type: string; readonly tUs: Micros }>;
  /** Whose log lines to keep, and when. */
  readonly logWindows: readonly { readonly actors: readonly string[]; readonly fromUs: Micros; readonly toUs: Micros }[];
}

/** A payload as readable JSON: byte arrays as their length, big integers as strings. */
export function payloadText(payload: Payload): string {
  let message: Message | unknown;
  try {
    message = payload instanceof Uint8Array ? decode(payload) : payload;
  } catch (error) {
    return `(a frame that does not decode: ${error instanceof Error ? error.message : String(error)})`;
  }
  const json = JSON.stringify(message, (_key, value: unknown) =>
    value instanceof Uint8Array ? `<${value.length} bytes>` : typeof value === "bigint" ? value.toString() : value,
  );
  return json.length > PAYLOAD_LIMIT ? `${json.slice(0, PAYLOAD_LIMIT)}...` : json;
}

/** The core's CellSink, keeping the payloads of the wanted sends on their way through. */
class PayloadTap implements CellSink {
  readonly #core: SimulationCore;
  readonly #wanted: ChainReplayInputs["sends"];
  readonly payloads = new Map<number, string>();
  mismatches = 0;

  constructor(core: SimulationCore, wanted: ChainReplayInputs["sends"]) {
    this.#core = core;
    this.#wanted = wanted;
  }

  send(from: ActorId, to: ActorId, seq: number, now: Micros, msgType: string, payload: Payload, bytes: number, conn: number): void {
    const index = this.#core.history.length;
    this.#core.send(from, to, seq, now, msgType, payload, bytes, conn);
    const expected = this.#wanted.get(index);
    if (expected === undefined) return;
    // The re-run must be the same run: the send at this index is the one the history recorded.
    if (expected.from !== from || expected.to !== to || expected.type !== msgType || expected.tUs !== now) this.mismatches++;
    else this.payloads.set(index, payloadText(payload));
  }
  observe(actor: ActorId, now: Micros, observation: Observation): void {
    this.#core.observe(actor, now, observation);
  }
  connection(actor: ActorId, now: Micros, event: ConnectionEvent): void {
    this.#core.connection(actor, now, event);
  }
  lifecycle(actor: ActorId, now: Micros, what: LifecycleEvent, detail: string | null): void {
    this.#core.lifecycle(actor, now, what, detail);
  }
  actorError(actor: ActorId, now: Micros, during: string, message: string, stack: string): void {
    this.#core.actorError(actor, now, during, message, stack);
  }
  rejected(actor: ActorId, now: Micros, from: ActorId, reason: string, detail: string): void {
    this.#core.rejected(actor, now, from, reason, detail);
  }
  lost(actor: ActorId, now: Micros, from: ActorId, msgType: string, why: string): void {
    this.#core.lost(actor, now, from, msgType, why);
  }
  scheduleTimer(timer: ArmedTimer): void {
    this.#core.scheduleTimer(timer);
  }
  cancelTimer(timer: ArmedTimer): void {
    this.#core.cancelTimer(timer);
  }
}

/**
 * Runs the spec again inline (same seed, same history: the hosts are
 * deterministic) up to the last chain's end, keeping what the history does
 * not hold: the payload of each message the chains show (decoded from its
 * frame) and the involved members' log lines (every level) in their
 * windows. Each kept send is checked against the history's record of it;
 * a run that went another way (an injected frame, a changed build) yields
 * no payloads, and the note says so.
 */
export function replayChains(inputs: ChainReplayInputs): ChainEnrichment {
  const logs: ChainLogLine[] = [];
  let host: InlineHost | null = null;
  let tap: PayloadTap | null = null;
  const loggerFor = (actor: ActorId): ActorLogger => {
    const windows = inputs.logWindows.filter((w) => w.actors.includes(actor));
    if (windows.length === 0) return quiet;
    const line = (level: string) => (message: string, fields?: Record<string, JsonValue>) => {
      const tUs = host?.core.now ?? 0;
      if (!windows.some((w) => tUs >= w.fromUs && tUs <= w.toUs)) return;
      logs.push({ tUs, actor, level, message, fields: fields === undefined ? "" : JSON.stringify(fields) });
    };
    return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
  };
  host = new InlineHost(inputs.spec, inputs.registry, {
    history: { keepEvents: false },
    loggerFor,
    sink: (core) => {
      tap = new PayloadTap(core, inputs.sends);
      return tap;
    },
  });
  host.runUntil(inputs.horizonUs);
  const captured = tap as PayloadTap | null;
  if (captured === null || captured.mismatches > 0)
    return { payloads: new Map(), logs: [], note: "the re-run went another way than the recorded run: payloads and log lines left out" };
  return {
    payloads: captured.payloads,
    logs,
    note: `payloads and log lines from a re-run of the same seed up to ${(inputs.horizonUs / 1e6).toFixed(3)} s, checked send by send against the history`,
  };
}

const ignore = () => {};
const quiet: ActorLogger = { debug: ignore, info: ignore, warn: ignore, error: ignore };
