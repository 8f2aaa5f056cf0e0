import {
  Fetcher,
  FetchManager,
  FetchSessionCache,
  fetchRequestBytes,
  fetchResponseBytes,
  NO_PREFERRED_READ_REPLICA,
  type PartitionReadResult,
} from "@kcsim/fetch";
import {
  type ActorId,
  type Context,
  type DurableLog,
  ErrorCode,
  encode,
  type FetchRequest,
  type FetchResponse,
  type Message,
  type MetadataRequest,
  type MetadataResponse,
  type Micros,
  ms,
  type Observation,
  resolveConsumerConfig,
  streamFor,
  topicIdFor,
} from "@kcsim/protocol";
import type { BenchRow, BenchSuite } from "./bench-suite.js";

/**
 * Bytes per Fetch request from one consumer to one broker, measured: the
 * real client fetcher (`Fetcher`: its KIP-227 `FetchSessionHandler`, request
 * builder and `fetchRequestFor`) fetches N partitions of one topic, all led
 * by the same broker, from the real broker-side session manager
 * (`FetchManager` over a `FetchSessionCache`) for a few rounds in which
 * nothing is produced. Each request the fetcher sends is encoded with the
 * protocol codec (the bytes the simulator carries) and also sized with the
 * Kafka v13 wire model (`fetchRequestBytes`).
 *
 * Sessions off = a broker with `max.incremental.fetch.session.cache.slots`
 * 0: it never creates a session, so every request is full. Sessions on:
 * the first request is full, the later ones incremental.
 */

const CLIENT_ID = "consumer-1";
const CONSUMER: ActorId = CLIENT_ID;
const BROKER: ActorId = "broker-1";
const NODE_ID = 1;
const TOPIC = "events";
const TOPIC_ID = topicIdFor(TOPIC);

/** One Fetch request the fetcher sent, sized two ways, and the answer's sizes. */
export interface MeasuredFetch {
  /** Epoch 0 or -1: the request lists every partition. */
  readonly full: boolean;
  readonly partitionsListed: number;
  /** Bytes of the request encoded by the protocol codec (msgpack with the shared structures). */
  readonly codecBytes: number;
  /** Kafka wire size of the request (v13 layout, frame and header included). */
  readonly wireBytes: number;
  readonly responseCodecBytes: number;
  readonly responseWireBytes: number;
}

/** A Context for driving the fetcher by hand: fixed clock moved by the caller, sends collected. */
class BenchContext implements Context {
  readonly self: ActorId = CONSUMER;
  readonly sent: { to: ActorId; message: Message }[] = [];
  readonly #timers = new Set<string>();
  readonly #random = streamFor(1, CONSUMER).next;
  readonly storage: DurableLog = { append() {}, readAll: () => [], length: 0 };
  readonly log = { debug() {}, info() {}, warn() {}, error() {} };
  now_: Micros = 0;

  now(): Micros {
    return this.now_;
  }
  send(to: ActorId, message: Message): void {
    this.sent.push({ to, message });
  }
  closeConnection(): void {}
  configureConnections(): void {}
  setTimer(name: string): void {
    this.#timers.add(name);
  }
  cancelTimer(name: string): void {
    this.#timers.delete(name);
  }
  hasTimer(name: string): boolean {
    return this.#timers.has(name);
  }
  random(): number {
    return this.#random();
  }
  observe(_event: Observation): void {}
}

function metadataResponse(request: MetadataRequest, partitions: number): MetadataResponse {
  return {
    type: "MetadataResponse",
    correlationId: request.correlationId,
    throttleTimeMs: 0,
    brokers: [{ nodeId: NODE_ID, host: BROKER, port: 9092, rack: null }],
    controllerId: NODE_ID,
    topics: [
      {
        errorCode: ErrorCode.NONE,
        name: TOPIC,
        topicId: TOPIC_ID,
        isInternal: false,
        partitions: Array.from({ length: partitions }, (_, p) => ({
          errorCode: ErrorCode.NONE,
          partitionIndex: p,
          leaderId: NODE_ID,
          leaderEpoch: 0,
          replicaNodes: [NODE_ID],
          isrNodes: [NODE_ID],
        })),
      },
    ],
  };
}

/** The broker's answer: every partition read finds nothing new (empty logs, high watermark 0). */
function fetchResponse(manager: FetchManager, request: FetchRequest, now: Micros): FetchResponse {
  const context = manager.newContext(request, now);
  const reads: PartitionReadResult[] = context.partitions().map((target) => ({
    topicId: target.topicId,
    data: {
      partitionIndex: target.partition,
      errorCode: ErrorCode.NONE,
      highWatermark: 0,
      lastStableOffset: 0,
      logStartOffset: 0,
      abortedTransactions: null,
      preferredReadReplica: NO_PREFERRED_READ_REPLICA,
      records: [],
    },
  }));
  return context.updateAndGenerateResponse(reads, now);
}

/**
 * Runs `rounds` fetch round trips of a fetcher assigned `partitions`
 * partitions (each seeked to offset 0; every seek runs the fetcher's pump,
 * O(partitions), so setting up 10,000 partitions takes seconds) against one broker, with or without fetch
 * sessions, and returns every Fetch request it sent, in order.
 */
export function measureFetchRequests(partitions: number, sessions: boolean, rounds: number): MeasuredFetch[] {
  const fetcher = new Fetcher(resolveConsumerConfig({ "client.id": CLIENT_ID }), [BROKER], [{ name: TOPIC, id: TOPIC_ID, partitions }]);
  const manager = new FetchManager(
    new FetchSessionCache({ random: streamFor(3, BROKER).next, shardCount: 1, maxSlots: sessions ? 1000 : 0 }),
  );
  const ctx = new BenchContext();
  const assigned = Array.from({ length: partitions }, (_, p) => ({ topic: TOPIC, partition: p }));
  fetcher.assign(assigned, ctx);
  for (const tp of assigned) fetcher.seek(tp, 0, ctx);
  const measured: MeasuredFetch[] = [];
  // Answer whatever the fetcher sends, one message at a time, 1 ms apart, until `rounds` fetches are answered.
  while (measured.length < rounds) {
    const next = ctx.sent.shift();
    if (next === undefined) throw new Error(`the fetcher stopped sending after ${measured.length} fetches`);
    ctx.now_ += ms(1);
    const { message } = next;
    let answer: Message;
    if (message.type === "MetadataRequest") {
      answer = metadataResponse(message, partitions);
    } else if (message.type === "FetchRequest") {
      const response = fetchResponse(manager, message, ctx.now_);
      measured.push({
        full: message.sessionEpoch === 0 || message.sessionEpoch === -1,
        partitionsListed: message.topics.reduce((n, t) => n + t.partitions.length, 0),
        codecBytes: encode(message).length,
        wireBytes: fetchRequestBytes(message),
        responseCodecBytes: encode(response).length,
        responseWireBytes: fetchResponseBytes(response),
      });
      answer = response;
    } else {
      throw new Error(`unexpected ${message.type} from the fetcher`);
    }
    fetcher.receive(BROKER, answer, ctx);
  }
  return measured;
}

/** The partition counts of the curve. */
export const FETCH_BYTES_PARTITIONS: readonly number[] = [10, 100, 1_000, 10_000];

/**
 * The earlier closed-form estimate (Kafka v13 wire sizes, 33 B a partition
 * plus the frame, header and fixed fields), for comparison with the measured
 * rows: full requests at 10 / 100 / 1,000 / 10,000 partitions, and the
 * incremental request with nothing changed.
 */
const EARLIER_FORMULA_FULL = new Map([
  [10, 402],
  [100, 3_372],
  [1_000, 33_073],
  [10_000, 330_073],
]);
const EARLIER_FORMULA_INCREMENTAL = 54;

const ROUNDS = 5;

const fmt = (n: number) => n.toLocaleString("en-US");

export const fetchBytesBench: BenchSuite = {
  name: "fetch-bytes",
  description: "bytes per Fetch request to one broker, 10 to 10,000 partitions, full vs incremental (KIP-227), measured",
  async run(): Promise<BenchRow[]> {
    const rows: BenchRow[] = [];
    for (const partitions of FETCH_BYTES_PARTITIONS) {
      const off = measureFetchRequests(partitions, false, ROUNDS);
      const on = measureFetchRequests(partitions, true, ROUNDS);
      if (!off.every((r) => r.full)) throw new Error("sessions off: every request should be full");
      const [first, ...steady] = on;
      if (first === undefined || !first.full || steady.length === 0 || steady.some((r) => r.full)) {
        throw new Error("sessions on: the first request should be full and the rest incremental");
      }
      const fullRequest = off[off.length - 1] as MeasuredFetch;
      const incremental = steady[steady.length - 1] as MeasuredFetch;
      const sameEvery = (list: readonly MeasuredFetch[], r: MeasuredFetch) =>
        list.every((x) => x.codecBytes === r.codecBytes && x.wireBytes === r.wireBytes);
      rows.push({
        suite: this.name,
        case: `${fmt(partitions)} partitions, full request (sessions off)`,
        value: fullRequest.codecBytes,
        unit: "B/request",
        note:
          `codec bytes; Kafka wire ${fmt(fullRequest.wireBytes)} B (earlier formula ${fmt(EARLIER_FORMULA_FULL.get(partitions) ?? -1)} B); ` +
          `response ${fmt(fullRequest.responseCodecBytes)} B codec / ${fmt(fullRequest.responseWireBytes)} B wire; ` +
          `${ROUNDS} rounds${sameEvery(off, fullRequest) ? ", all the same" : ", sizes varied"}`,
      });
      rows.push({
        suite: this.name,
        case: `${fmt(partitions)} partitions, incremental request (sessions on, nothing changed)`,
        value: incremental.codecBytes,
        unit: "B/request",
        note:
          `codec bytes; Kafka wire ${fmt(incremental.wireBytes)} B (earlier formula ${EARLIER_FORMULA_INCREMENTAL} B); ` +
          `response ${fmt(incremental.responseCodecBytes)} B codec / ${fmt(incremental.responseWireBytes)} B wire; ` +
          `first request full (${fmt(first.codecBytes)} B codec); ${steady.length} incremental${sameEvery(steady, incremental) ? ", all the same" : ", sizes varied"}`,
      });
    }
    return rows;
  },
};
