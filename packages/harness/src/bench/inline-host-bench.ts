import { decodeUnchecked, encode, type Message } from "@kcsim/protocol";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { InlineHost } from "../hosts/inline-host.js";
import type { ActorSpec, SimulationSpec } from "../kernel/simulation-spec.js";
import { DEFAULT_NETWORK } from "../router/fault-plan.js";
import { type BenchRow, type BenchSuite, median, round, spreadOf } from "./bench-suite.js";

const ACTORS = 1000;
const VIRTUAL_MS = 600;
/**
 * Rounds of the comparison. Each round runs the four loops once, back to
 * back, and the ratios are taken within a round, then their median: on this
 * shared machine the speed of allocation-heavy code drifts by tens of percent
 * within a minute (one loop measured three times, then the other three
 * times, gave the ratio anywhere from 0.45x to 1.9x in runs minutes apart),
 * while two loops run a second apart see the same machine.
 */
const ROUNDS = 5;

/** 1,000 actors: 500 closed-loop ping-pong pairs, each ping answered by a pong. */
function pingPongSpec(actors: number, useCodec: boolean, virtualMs: number): SimulationSpec {
  const specs: ActorSpec[] = [];
  for (let i = 0; i < actors / 2; i++) {
    specs.push({ id: `pinger-${i}`, kind: "pinger", config: { peer: `ponger-${i}`, timeoutMs: 50, observeEachPong: false }, startAtUs: 0 });
    specs.push({ id: `ponger-${i}`, kind: "ponger", config: {}, startAtUs: 0 });
  }
  return {
    scenario: "bench-ping-pong",
    seed: 1,
    durationUs: virtualMs * 1000,
    actors: specs,
    plan: { network: DEFAULT_NETWORK, messageFaults: [], partitions: [] },
    nemesis: [],
    useCodec,
    restartPolicy: { mode: "stop" },
  };
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** One inline run's CPU microseconds per delivered message (the history hashed, not kept). */
function inlineRun(useCodec: boolean): { us: number; delivered: number } {
  const start = process.cpuUsage();
  const result = new InlineHost(pingPongSpec(ACTORS, useCodec, VIRTUAL_MS), DEFAULT_REGISTRY, { history: { keepEvents: false } }).run();
  return { us: (cpuMsSince(start) * 1000) / result.router.delivered, delivered: result.router.delivered };
}

/** A message in flight in the minimal loop: due time, a sequence number for ties, receiver, payload. */
interface Flight {
  readonly due: number;
  readonly seq: number;
  readonly to: number;
  readonly payload: Uint8Array | Message;
}

const before = (a: Flight, b: Flight): boolean => a.due < b.due || (a.due === b.due && a.seq < b.seq);

/** The smallest event queue: a binary min-heap of flights. */
class FlightHeap {
  readonly items: Flight[] = [];

  push(flight: Flight): void {
    const items = this.items;
    let i = items.length;
    items.push(flight);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent] as Flight;
      if (!before(flight, above)) break;
      items[i] = above;
      i = parent;
    }
    items[i] = flight;
  }

  pop(): Flight | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= items.length) break;
      if (child + 1 < items.length && before(items[child + 1] as Flight, items[child] as Flight)) child++;
      const below = items[child] as Flight;
      if (!before(below, last)) break;
      items[i] = below;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/**
 * The baseline: a minimal discrete-event loop sending the inline bench's
 * messages (SimPing, answered by SimPong, 500 closed-loop pairs, a latency
 * drawn uniformly from the default network's 0.5-1.5 ms) through a binary
 * heap, encoding each message with msgpackr at send and decoding it at
 * receipt (`codec`), or handing the object over. Everything the simulator
 * adds (router, faults, connections, timers, history, checkers' input) is
 * what the ratio measures.
 */
function minimalLoop(messages: number, codec: boolean): number {
  const heap = new FlightHeap();
  const pings = new Float64Array(ACTORS);
  const nextPing = (pinger: number): Message => {
    const n = (pings[pinger] ?? 0) + 1;
    pings[pinger] = n;
    return { type: "SimPing", seq: n, payload: "ping" };
  };
  let seq = 0;
  let now = 0;
  let random = 1;
  const latency = (): number => {
    random = (Math.imul(random, 1103515245) + 12345) >>> 0;
    return 500 + (random % 1001);
  };
  const send = (to: number, message: Message): void => {
    heap.push({ due: now + latency(), seq: seq++, to, payload: codec ? encode(message) : message });
  };
  for (let pinger = 0; pinger < ACTORS; pinger += 2) send(pinger + 1, nextPing(pinger));
  for (let delivered = 0; delivered < messages; delivered++) {
    const flight = heap.pop() as Flight;
    now = flight.due;
    const message = (flight.payload instanceof Uint8Array ? decodeUnchecked(flight.payload) : flight.payload) as Message;
    if (message.type === "SimPing") send(flight.to - 1, { type: "SimPong", seq: message.seq, payload: message.payload });
    else if (message.type === "SimPong" && message.seq === pings[flight.to]) send(flight.to + 1, nextPing(flight.to));
  }
  return heap.items.length;
}

/** One run of the minimal loop: CPU microseconds per message. */
function minimalRun(messages: number, codec: boolean): number {
  const start = process.cpuUsage();
  minimalLoop(messages, codec);
  return (cpuMsSince(start) * 1000) / messages;
}

/** CPU microseconds per message of each loop in one round. */
export interface PingPongRound {
  readonly inline: number;
  readonly noCodec: number;
  readonly withMsgpackr: number;
  readonly bare: number;
}

/** What the suite reports of its rounds: each loop's median, and the medians of the ratios taken within each round. */
export function summarizeRounds(rounds: readonly PingPongRound[]) {
  if (rounds.length === 0) throw new Error("inline-host bench: no rounds to summarize");
  const ofEach = (ratio: (round: PingPongRound) => number) => spreadOf(rounds.map(ratio));
  return {
    inline: median(rounds.map((r) => r.inline)),
    noCodec: median(rounds.map((r) => r.noCodec)),
    withMsgpackr: median(rounds.map((r) => r.withMsgpackr)),
    bare: median(rounds.map((r) => r.bare)),
    sealingCost: ofEach((r) => 1 - r.noCodec / r.inline),
    versusMsgpackr: ofEach((r) => r.withMsgpackr / r.inline),
    versusBare: ofEach((r) => r.bare / r.inline),
  };
}

/**
 * The warm-up is a whole inline run of each kind, because V8 keeps
 * deoptimizing and re-optimizing the message path for some 600 ms of
 * virtual time (about 100 optimizations, 15 deoptimizations with
 * --trace-opt --trace-deopt) after a 50 ms one; a scenario's run of seconds
 * amortises that, a measured run of 600 ms would not.
 */
function measureRounds(): { rounds: PingPongRound[]; delivered: number } {
  const { delivered } = inlineRun(true);
  inlineRun(false);
  minimalLoop(delivered / 10, true);
  minimalLoop(delivered / 10, false);
  const rounds: PingPongRound[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const inline = inlineRun(true).us;
    const withMsgpackr = minimalRun(delivered, true);
    const noCodec = inlineRun(false).us;
    const bare = minimalRun(delivered, false);
    rounds.push({ inline, noCodec, withMsgpackr, bare });
  }
  return { rounds, delivered };
}

export const inlineHostBench: BenchSuite = {
  name: "inline-host",
  description:
    "inline host: CPU per delivered message, 1,000 ping-pong actors (history hashed, not kept), against a minimal heap loop sending the same messages",
  async run(): Promise<BenchRow[]> {
    const { rounds, delivered } = measureRounds();
    const summary = summarizeRounds(rounds);
    const perSecond = (us: number) => Math.round(1e6 / us);
    const spread = (ratio: { min: number; max: number }) => `${round(ratio.min)} to ${round(ratio.max)}x`;
    const note = `${delivered.toLocaleString("en-US")} messages; CPU time, median of ${ROUNDS} rounds`;
    return [
      { suite: this.name, case: "1,000 actors, sealed messages", value: perSecond(summary.inline), unit: "msg/CPU-s", note },
      {
        suite: this.name,
        case: "1,000 actors, codec off",
        value: perSecond(summary.noCodec),
        unit: "msg/CPU-s",
        note: `messages unsealed and unsized (benchmarks only); sealing costs ${Math.round(summary.sealingCost.median * 100)}% (median of the rounds)`,
      },
      {
        suite: this.name,
        case: "minimal heap loop, msgpackr",
        value: perSecond(summary.withMsgpackr),
        unit: "msg/CPU-s",
        note: "the same messages, encoded and decoded, through a binary heap (the baseline)",
      },
      {
        suite: this.name,
        case: "minimal heap loop, no msgpackr",
        value: perSecond(summary.bare),
        unit: "msg/CPU-s",
        note: "the same messages as objects through a binary heap",
      },
      {
        suite: this.name,
        case: "inline / minimal loop with msgpackr",
        value: round(summary.versusMsgpackr.median),
        unit: "x",
        note: `median of the ratios within each round (${spread(summary.versusMsgpackr)}); ${round(summary.inline)} vs ${round(summary.withMsgpackr)} us per message (target >= 0.6x)`,
      },
      {
        suite: this.name,
        case: "inline / minimal loop without msgpackr",
        value: round(summary.versusBare.median),
        unit: "x",
        note: `median of the ratios within each round (${spread(summary.versusBare)}); ${round(summary.inline)} vs ${round(summary.bare)} us per message`,
      },
    ];
  },
};
