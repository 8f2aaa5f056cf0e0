import { type ActorId, getOrCreate, type Micros, tpKey } from "@kcsim/protocol";
import type { HistoryEvent, SendRecord } from "../history/history-event.js";
import { formatSeconds } from "../report/time-format.js";
import { ClientCloses } from "./client-closes.js";
import { memoByHistory } from "./history-memo.js";
import { observationOf } from "./observations.js";

/** A transaction marker a partition leader wrote, and its history index. */
interface WrittenMarker {
  readonly t: Micros;
  readonly index: number;
  readonly broker: ActorId;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly committed: boolean;
  readonly offset: number;
}

/** A transactional producer's acknowledged batch of one partition. */
interface AckedBatch {
  readonly producerId: number;
  readonly transactionalId: string;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly t: Micros;
}

/** A transaction coordinator's change of one transactional id's state. */
interface TxnStateChange {
  readonly t: Micros;
  readonly index: number;
  readonly coordinator: ActorId;
  readonly from: string;
  readonly to: string;
}

/** How an output record came to be committed by a marker of an earlier transaction. */
export interface StaleMarkerStory {
  readonly text: string;
  /** The history events that show it: the stale marker, its request, the close, the first marker, the transaction's end. */
  readonly cited: readonly number[];
}

/** The states a transaction ends in, at its coordinator (an epoch fence goes on to PrepareAbort). */
const ENDING = new Set(["PrepareCommit", "PrepareAbort"]);
/** The states a new transaction starts from. */
const BETWEEN = new Set(["Empty", "CompleteCommit", "CompleteAbort"]);

/**
 * Which transactional records were committed by a marker meant for an
 * earlier transaction of their producer. A transaction coordinator that
 * gives up a WriteTxnMarkers request (request.timeout.ms: it closes the
 * connection and sends the markers again on a new one) may still see the
 * old request reach the partition leader later: the kernel's
 * retransmission delivers what a closed socket had sent. Under transaction
 * version 1 (what chaos-eos runs), a producer keeps its epoch from one
 * transaction to the next, and a leader takes a marker of the producer's
 * current epoch and coordinator epoch whatever transaction is open there
 * (ProducerAppendInfo.appendEndTxnMarker checks only that neither went
 * back): the late marker, a second one for a transaction its retry had
 * already ended there, ends the producer's next transaction on that
 * partition. A COMMIT makes that transaction's records there visible to
 * read_committed readers, whatever the coordinator decides for the rest of
 * it. Transaction version 2 (KIP-890) bumps the producer epoch at each
 * transaction's end, and KIP-1228 (Kafka 4.2) has leaders take a TV2
 * marker only above the epoch they hold, as kcsim's do under version 2.
 *
 * Connection mode only (the late request rode a connection its client had
 * closed).
 */
export class StaleTxnMarkers {
  /** Each partition's markers by producer, in log order. */
  readonly #markers = new Map<string, Map<number, WrittenMarker[]>>();
  /** Each partition's acknowledged transactional batches. */
  readonly #batches = new Map<string, AckedBatch[]>();
  /** WriteTxnMarkers requests by leader and arrival time (the leader writes the markers when the request arrives). */
  readonly #requests = new Map<string, { readonly send: SendRecord; readonly index: number }[]>();
  readonly #closes = new ClientCloses();
  /** Each transactional id's state changes at its coordinators, in order. */
  readonly #states = new Map<string, TxnStateChange[]>();

  constructor(events: readonly HistoryEvent[]) {
    events.forEach((event, index) => {
      if (event.ev === "conn") {
        this.#closes.accept(event, index);
        return;
      }
      if (event.ev === "send") {
        const arrived = event.at[0];
        if (event.type === "WriteTxnMarkersRequest" && arrived !== undefined)
          getOrCreate(this.#requests, `${event.to}\u0000${arrived}`, () => []).push({ send: event, index });
        return;
      }
      if (event.ev !== "obs") return;
      const marker = observationOf(event, "broker.txn-marker");
      if (marker !== undefined) {
        const byProducer = getOrCreate(this.#markers, tpKey(marker.topic, marker.partition), () => new Map<number, WrittenMarker[]>());
        getOrCreate(byProducer, marker.producerId, () => []).push({
          t: event.t,
          index,
          broker: event.actor,
          producerId: marker.producerId,
          producerEpoch: marker.producerEpoch,
          committed: marker.committed,
          offset: marker.offset,
        });
        return;
      }
      const ack = observationOf(event, "producer.ack");
      if (ack !== undefined) {
        if (ack.errorCode !== 0 || ack.transactionalId === null || ack.baseOffset < 0) return;
        getOrCreate(this.#batches, tpKey(ack.topic, ack.partition), () => []).push({
          producerId: ack.producerId,
          transactionalId: ack.transactionalId,
          baseOffset: ack.baseOffset,
          lastOffset: ack.lastOffset,
          t: event.t,
        });
        return;
      }
      const state = observationOf(event, "txn.state");
      if (state !== undefined)
        getOrCreate(this.#states, state.transactionalId, () => []).push({
          t: event.t,
          index,
          coordinator: event.actor,
          from: state.from,
          to: state.to,
        });
    });
  }

  /**
   * The story of the record at `offset` of partition `tp` (a `topic-partition` key), when the marker that
   * committed it was a second one for an earlier transaction of its producer, carried by a request its
   * transaction coordinator had given up; null otherwise.
   */
  storyOf(tp: string, offset: number): StaleMarkerStory | null {
    const batch = this.#batches.get(tp)?.find((b) => b.baseOffset <= offset && offset <= b.lastOffset);
    if (batch === undefined) return null;
    const markers = this.#markers.get(tp)?.get(batch.producerId) ?? [];
    const ending = markers.find((m) => m.offset > offset);
    if (ending === undefined || !ending.committed) return null;
    const carriers = this.#requests.get(`${ending.broker}\u0000${ending.t}`) ?? [];
    const carrier = carriers.length === 1 ? carriers[0] : undefined;
    if (carrier === undefined) return null;
    const closed = this.#closes.closedBefore(carrier.send);
    if (closed === null) return null;
    // The marker its retry wrote: the same transaction's, after the request was sent and before it arrived.
    const first = markers.find(
      (m) => m.t >= carrier.send.t && m.t < ending.t && m.producerEpoch === ending.producerEpoch && m.committed === ending.committed,
    );
    if (first === undefined) return null;
    const coordinator = carrier.send.from;
    let text =
      `${tp}@${offset} was made visible by a second COMMIT marker: ${ending.broker} wrote it at ${formatSeconds(ending.t)} ` +
      `(offset ${ending.offset}) for producer ${ending.producerId}, epoch ${ending.producerEpoch}, from the WriteTxnMarkers ` +
      `request ${coordinator} sent at ${formatSeconds(carrier.send.t)} and gave up at ${formatSeconds(closed.close.t)} ` +
      `(${closed.close.reason ?? "closed"}), whose retry had written that transaction's marker on ${tp} ` +
      `at ${formatSeconds(first.t)} (offset ${first.offset}); it ended the transaction the producer had open there then`;
    const cited = [ending.index, carrier.index, closed.index, first.index];
    const end = this.#endOfTransactionAt(batch.transactionalId, batch.t);
    if (end !== undefined) {
      const outcome = end.to === "PrepareCommit" ? "committed" : "aborted";
      text += `, which ${end.coordinator} ${outcome} at ${formatSeconds(end.t)}`;
      cited.push(end.index);
    }
    text +=
      ". Under transaction version 1 a producer keeps its epoch from one transaction to the next, and a leader takes a " +
      "marker of its current epoch whatever transaction is open (ProducerAppendInfo.appendEndTxnMarker); transaction " +
      "version 2 bumps the epoch at each transaction's end (KIP-890), and KIP-1228 (Kafka 4.2) has leaders take a " +
      "TV2 marker only above the epoch they hold";
    return { text, cited };
  }

  /** How the coordinator ended the transaction of `transactionalId` that was open at `t`. */
  #endOfTransactionAt(transactionalId: string, t: Micros): TxnStateChange | undefined {
    const changes = this.#states.get(transactionalId) ?? [];
    let open = false;
    for (const change of changes) {
      if (change.t <= t) {
        if (change.to === "Ongoing" && BETWEEN.has(change.from)) open = true;
        else if (ENDING.has(change.to)) open = false;
        continue;
      }
      if (open && ENDING.has(change.to)) return change;
    }
    return undefined;
  }
}

/** StaleTxnMarkers of a history, built once per history. */
export const staleTxnMarkersOf: (events: readonly HistoryEvent[]) => StaleTxnMarkers = memoByHistory(
  (events) => new StaleTxnMarkers(events),
);
