import type { ConsumedRecord } from "@kcsim/fetch";

/**
 * A record of the SyntheticRecordSource. Its key and value both name it
 * ("T1-3@17", so checkers can follow it) and are built when read: most
 * applications never read them, and a string per record handed out was a
 * good part of what a poll cost.
 */
export class SyntheticRecord implements ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestampMs: number;
  readonly sizeInBytes: number;

  constructor(topic: string, partition: number, offset: number, timestampMs: number, sizeInBytes: number) {
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.timestampMs = timestampMs;
    this.sizeInBytes = sizeInBytes;
  }

  get key(): string {
    return `${this.topic}-${this.partition}@${this.offset}`;
  }

  get value(): string {
    return `${this.topic}-${this.partition}@${this.offset}`;
  }
}
