import { parseResultValue } from "@kcsim/member";
import { getOrCreate, type Micros, tpKey } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import { observationOf } from "./observations.js";

/** One record of the output topic that holds the result of an input record. */
export interface ResultCopy {
  /** Where it is in the output topic. */
  readonly outputTp: string;
  readonly outputOffset: number;
  /** The application that produced it (from the value). */
  readonly writer: string;
  /** When a reader first saw it, and that `sink.write` event. */
  readonly t: Micros;
  readonly index: number;
}

/** The committed content of an output topic, as its read_committed readers saw it. */
export interface OutputResults {
  /** Output records the readers saw (each counted once, however often it was read). */
  readonly recordsRead: number;
  /** Result copies by input record (`<topic>-<partition>@<offset>`). */
  readonly byInput: ReadonlyMap<string, readonly ResultCopy[]>;
  /** Output records whose value names no input record. */
  readonly foreign: readonly { readonly t: Micros; readonly index: number; readonly value: string | null }[];
}

/**
 * The results in `outputTopic` as the applications reading that topic saw
 * them: every `sink.write` of a record of the output topic (a verifier
 * group reading it with isolation.level=read_committed writes each record
 * it processes to its sink). An output record read several times (the
 * reader's own re-deliveries) counts once: copies are distinct output
 * offsets holding a result of the same input record.
 */
export function outputResults(events: readonly HistoryEvent[], outputTopic: string): OutputResults {
  const seen = new Set<string>();
  const byInput = new Map<string, ResultCopy[]>();
  const foreign: { t: Micros; index: number; value: string | null }[] = [];
  events.forEach((event, index) => {
    const write = observationOf(event, "sink.write");
    if (write === undefined || write.inputTopic !== outputTopic) return;
    const outputTp = tpKey(write.inputTopic, write.inputPartition);
    const position = `${outputTp}@${write.inputOffset}`;
    if (seen.has(position)) return;
    seen.add(position);
    const origin = parseResultValue(write.value);
    if (origin === null) {
      foreign.push({ t: event.t, index, value: write.value });
      return;
    }
    const input = `${tpKey(origin.topic, origin.partition)}@${origin.offset}`;
    getOrCreate(byInput, input, () => []).push({ outputTp, outputOffset: write.inputOffset, writer: origin.writer, t: event.t, index });
  });
  return { recordsRead: seen.size, byInput, foreign };
}
