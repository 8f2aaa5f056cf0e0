import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from "@kcsim/protocol";

/** A producer id with its epoch (Kafka's `ProducerIdAndEpoch`). */
export interface ProducerIdAndEpoch {
  readonly producerId: number;
  readonly epoch: number;
}

export const NO_PRODUCER_ID_AND_EPOCH: ProducerIdAndEpoch = { producerId: NO_PRODUCER_ID, epoch: NO_PRODUCER_EPOCH };

export function isValidProducerIdAndEpoch(p: ProducerIdAndEpoch): boolean {
  return p.producerId !== NO_PRODUCER_ID && p.epoch !== NO_PRODUCER_EPOCH;
}

export function sameProducerIdAndEpoch(a: ProducerIdAndEpoch, b: ProducerIdAndEpoch): boolean {
  return a.producerId === b.producerId && a.epoch === b.epoch;
}
