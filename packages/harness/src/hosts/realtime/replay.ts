import type { ActorId, Message, Micros, Observation } from "@kcsim/protocol";
import { ActorCell, type CellSink } from "../../kernel/actor-cell.js";
import { type ActorRegistry, factoryFor } from "../../kernel/actor-registry.js";
import type { CellCarry } from "../../kernel/cell-carry.js";
import { MemoryDurableLog } from "../../kernel/durable-log.js";
import { armedTimer, controlEvent, deliveryEvent, type Payload } from "../../kernel/event.js";
import { OriginRanks } from "../../kernel/origin-ranks.js";
import { silentLogger } from "../../kernel/silent-logger.js";
import type { ActorSpec } from "../../kernel/simulation-spec.js";
import { corruptFrame } from "../../router/router.js";
import { frameFromText, type Recording, type RecordingEntry, RecordingError, type RouteEntry, type RunEntry } from "./recording.js";

/** How one actor's replay compared with its recording. */
export interface ActorReplay {
  readonly actor: ActorId;
  /** Events of the recording the actor handled (deliveries, timers, control). */
  readonly events: number;
  /** Messages it received in the recording, and how many the replayed senders reproduced byte for byte. */
  readonly received: number;
  readonly reproduced: number;
  /** Messages it sent in the recording, and how many the replay sent again (same receiver, type and size). */
  readonly sent: number;
  readonly resent: number;
  readonly equal: boolean;
  readonly firstDifference: string | null;
}

export interface ReplayReport {
  readonly scenario: string;
  readonly seed: number;
  readonly timeScale: number;
  readonly entries: number;
  readonly equal: boolean;
  readonly actors: readonly ActorReplay[];
}

interface SentMessage {
  readonly to: ActorId;
  readonly type: string;
  readonly bytes: number;
  readonly payload: Payload;
}

const sendKey = (from: ActorId, seq: number) => `${from}\u0000${seq}`;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function samePayload(a: Payload, b: Payload): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return sameBytes(a, b);
  if (a instanceof Uint8Array || b instanceof Uint8Array) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameCarry(a: CellCarry, b: CellCarry): boolean {
  return a.seq === b.seq && a.clockOffset === b.clockOffset && a.rng.every((word, i) => word === b.rng[i]);
}

/** Per-actor tallies while replaying. */
class Tally {
  events = 0;
  received = 0;
  reproduced = 0;
  firstDifference: string | null = null;

  differ(text: string): void {
    this.firstDifference ??= text;
  }
}

/** The replay's CellSink: sends are kept (the receivers' deliveries take them), everything else is dropped. */
class ReplaySink implements CellSink {
  readonly sent = new Map<string, SentMessage>();

  send(from: ActorId, to: ActorId, seq: number, _now: Micros, msgType: string, payload: Payload, bytes: number): void {
    this.sent.set(sendKey(from, seq), { to, type: msgType, bytes, payload });
  }
  connection(): void {}
  observe(_actor: ActorId, _now: Micros, _observation: Observation): void {}
  lifecycle(): void {}
  actorError(): void {}
  rejected(): void {}
  lost(): void {}
  scheduleTimer(): void {
    // The recording says when each timer fired: the schedule drives timers, not the replay's own clock.
  }
  cancelTimer(): void {}
}

/**
 * Re-runs every actor of a realtime recording, inline and in virtual time,
 * on the recorded schedule: each actor handles exactly the events it
 * handled in the run, at the virtual times it handled them, in the same
 * order. A delivery's message is not taken from the recording but from
 * the replayed sender (with the router's recorded corruption applied), so
 * the replay reproduces each actor's received messages only if every
 * actor's behaviour is a function of its schedule. The report compares,
 * per actor, the received messages (byte for byte) and the sends with the
 * recording.
 */
export function replayRecording(recording: Recording, registry: ActorRegistry): ReplayReport {
  const spec = recording.header.spec;
  const sink = new ReplaySink();
  const specs = new Map<ActorId, ActorSpec>(spec.actors.map((a) => [a.id, a]));
  const logs = new Map<ActorId, MemoryDurableLog>();
  const cells = new Map<ActorId, ActorCell>();
  const tallies = new Map<ActorId, Tally>();
  const routes = new Map<string, RouteEntry>();
  const ranks = OriginRanks.of(spec);

  const build = (id: ActorId, carry?: CellCarry): ActorCell => {
    const actor = specs.get(id);
    if (actor === undefined) throw new RecordingError(`the recording names actor '${id}', which its spec does not have`);
    let log = logs.get(id);
    if (log === undefined) {
      log = new MemoryDurableLog();
      logs.set(id, log);
    }
    const cell = new ActorCell(
      {
        id,
        kind: actor.kind,
        config: actor.config,
        factory: factoryFor(registry, actor.kind),
        seed: spec.seed,
        rank: ranks.rank(id),
        messages: spec.useCodec ? "frames" : "raw",
        network: spec.plan.network.mode,
        storage: log,
        restartPolicy: spec.restartPolicy,
        logger: silentLogger,
        ...(carry !== undefined ? { carry } : {}),
      },
      sink,
    );
    cells.set(id, cell);
    return cell;
  };
  for (const actor of spec.actors) {
    build(actor.id);
    tallies.set(actor.id, new Tally());
  }

  // Per actor the file order is the order of events; across actors, virtual time (a message is always
  // handled after it was sent: its delivery time is at least one lookahead later).
  const schedule: { entry: Exclude<RecordingEntry, RouteEntry>; key: Micros; index: number }[] = [];
  const lastOf = new Map<ActorId, Micros>();
  recording.entries.forEach((entry, index) => {
    if (entry.r === "route") {
      routes.set(sendKey(entry.from, entry.seq), entry);
      return;
    }
    const key = Math.max(entry.t, lastOf.get(entry.actor) ?? 0);
    lastOf.set(entry.actor, key);
    schedule.push({ entry, key, index });
  });
  schedule.sort((a, b) => a.key - b.key || a.index - b.index);

  for (const { entry } of schedule) {
    const tally = tallies.get(entry.actor);
    if (tally === undefined) throw new RecordingError(`the recording names actor '${entry.actor}', which its spec does not have`);
    if (entry.r === "down" || entry.r === "up") {
      const current = cells.get(entry.actor);
      // A worker that went before reporting the actor's state leaves nothing to compare (the run does not know it).
      const known = entry.r === "up" || entry.unknownState !== true;
      if (current !== undefined && known && !sameCarry(current.carry(), entry.carry))
        tally.differ(`at ${entry.t} us its ${entry.r === "down" ? "crash" : "restart"} carried another state than the replay's`);
      build(entry.actor, entry.carry);
      continue;
    }
    tally.events++;
    replayRun(entry, cells.get(entry.actor) as ActorCell, tally, sink, routes);
  }

  const actors: ActorReplay[] = spec.actors.map((actor) => {
    const tally = tallies.get(actor.id) as Tally;
    let sent = 0;
    let resent = 0;
    for (const route of routes.values()) {
      if (route.from !== actor.id) continue;
      sent++;
      const again = sink.sent.get(sendKey(route.from, route.seq));
      if (again !== undefined && again.to === route.to && again.type === route.type && again.bytes === route.bytes) resent++;
      else tally.differ(`its send #${route.seq} (${route.type} to ${route.to} at ${route.t} us) was not sent again`);
    }
    const equal = tally.reproduced === tally.received && resent === sent && tally.firstDifference === null;
    return {
      actor: actor.id,
      events: tally.events,
      received: tally.received,
      reproduced: tally.reproduced,
      sent,
      resent,
      equal,
      firstDifference: tally.firstDifference,
    };
  });
  return {
    scenario: spec.scenario,
    seed: spec.seed,
    timeScale: recording.header.timeScale,
    entries: recording.entries.length,
    equal: actors.every((a) => a.equal),
    actors,
  };
}

function replayRun(entry: RunEntry, cell: ActorCell, tally: Tally, sink: ReplaySink, routes: ReadonlyMap<string, RouteEntry>): void {
  const e = entry.e;
  const to = entry.actor;
  if (e.k === "timer") {
    cell.handle(armedTimer(entry.t, to, 0, e.seq, to, e.name));
    return;
  }
  if (e.k === "control") {
    cell.handle(controlEvent(entry.t, e.origin, 0, e.seq, e.sub, to, e.control));
    return;
  }
  tally.received++;
  const recorded: Payload = e.frame !== undefined ? frameFromText(e.frame) : (e.message as Message);
  let payload = recorded;
  let type = e.type;
  const route = routes.get(sendKey(e.origin, e.seq));
  if (e.origin.startsWith("!") || (route?.fate === "broken" && e.sub > 0)) {
    tally.reproduced++; // injected from outside the system, or the router's notice of a break: the input itself
  } else {
    const sent = sink.sent.get(sendKey(e.origin, e.seq));
    if (sent === undefined) {
      tally.differ(`at ${entry.t} us it received ${e.type} #${e.seq} from ${e.origin}, which the replayed sender never sent`);
    } else {
      const corrupt = route?.corrupt;
      payload = corrupt !== undefined && sent.payload instanceof Uint8Array ? corruptFrame(sent.payload, corrupt) : sent.payload;
      type = sent.type;
      if (samePayload(payload, recorded)) tally.reproduced++;
      else tally.differ(`at ${entry.t} us its ${e.type} #${e.seq} from ${e.origin} differs from the recorded message`);
    }
  }
  // Rank 0: one event at a time, on the recorded schedule, so no queue orders it.
  cell.handle(deliveryEvent(entry.t, e.origin, 0, e.seq, e.sub, to, e.from, type, payload, e.conn ?? 0, -1, e.lostWithBreak === true));
}
