import type { ConsumedRecord } from "@kcsim/fetch";
import { type Context, tpKey } from "@kcsim/protocol";
import type { MemberObserver } from "../consumer/member-observer.js";
import type { SinkMode } from "./processing-config.js";

/**
 * The external store an application writes its processed records to,
 * outside Kafka (so outside any Kafka transaction): each write is a
 * `sink.write` observation, and the store is what those writes add up to.
 * An append sink adds a row per write; an upsert sink writes the row of the
 * input record (topic, partition, offset), so writing a re-delivered record
 * again changes nothing: an idempotent sink.
 */
export class RecordSink {
  readonly mode: SinkMode;
  readonly #observer: MemberObserver;
  #writes = 0;

  constructor(mode: SinkMode, observer: MemberObserver) {
    this.mode = mode;
    this.#observer = observer;
  }

  write(record: ConsumedRecord, ctx: Context): void {
    this.#writes++;
    this.#observer.sinkWrite(ctx, {
      mode: this.mode,
      row: this.mode === "upsert" ? `${tpKey(record.topic, record.partition)}@${record.offset}` : null,
      key: record.key,
      value: record.value,
      inputTopic: record.topic,
      inputPartition: record.partition,
      inputOffset: record.offset,
    });
  }

  get writes(): number {
    return this.#writes;
  }
}
