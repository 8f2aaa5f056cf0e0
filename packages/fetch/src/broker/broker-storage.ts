import type { LogChange } from "./partition-log.js";

/**
 * What a broker keeps in its durable storage: a marker written at its very
 * first start (a restarted broker waits for the controller's metadata
 * instead of assuming the initial placement), every change to every
 * partition log, in order, and the end of the last block of producer ids
 * it reserved.
 */
export type BrokerStorageRecord =
  | { readonly boot: true }
  | { readonly topic: string; readonly partition: number; readonly change: LogChange }
  | { readonly producerIdBlockEnd: number };
