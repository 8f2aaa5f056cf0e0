import type { MessagePort } from "node:worker_threads";
import { decode, decodeUnchecked, encode } from "@kcsim/protocol";
import { ownedBytes } from "../hosts/worker/owned-bytes.js";

/**
 * One message in a pipeline batch: [from, to, type, frame], the names as
 * indices into tables both ends know (actor ids, message types), as a data
 * plane does: a string costs ~0.15 us to pack and unpack, an index nothing.
 */
export type PipelineMessage = readonly [number, number, number, Uint8Array];

/** The actors of the pipeline: senders first, the coordinator last. */
export const PIPELINE_ACTORS: readonly string[] = [...Array.from({ length: 100 }, (_, i) => `member-${i}`), "coordinator"];
export const PIPELINE_TYPES: readonly string[] = ["ConsumerGroupHeartbeatRequest"];

/** A batch, and how many of the sender's batches it stands for (the forwarder may merge several). */
export type PipelineBatch = readonly [batches: number, messages: readonly PipelineMessage[]];

export interface PipelineSenderConfig {
  readonly role: "sender";
  /** Payload size of the messages (SimPing), chosen so frames are about heartbeat-sized. */
  readonly payloadBytes: number;
  readonly batchSize: number;
  /** Batches in flight before the sender waits for the receiver's acknowledgements. */
  readonly window: number;
}

export interface PipelineReceiverConfig {
  readonly role: "receiver";
}

/**
 * The two ends of the router-throughput pipeline, free of worker_threads
 * (the ports are handed in), doing per message what the worker hosts do:
 * the sender encodes each message (ctx.send), the receiver decodes and
 * checks each frame (the cell, before the actor). The sender keeps `window` batches in flight
 * and sends one more per batch acknowledged; the receiver decodes every
 * batch, counts its messages and acknowledges the sender's batches it
 * stands for, directly to the sender.
 */
export function runSender(config: PipelineSenderConfig, out: MessagePort, acks: MessagePort): void {
  let n = 0;
  const payload = "x".repeat(config.payloadBytes);
  const batch = (): Uint8Array<ArrayBuffer> => {
    const messages: PipelineMessage[] = [];
    const coordinator = PIPELINE_ACTORS.length - 1;
    for (let i = 0; i < config.batchSize; i++, n++) {
      // Encoded per message, as an actor's ctx.send does.
      messages.push([n % coordinator, coordinator, 0, encode({ type: "SimPing", seq: n, payload })]);
    }
    return ownedBytes([1, messages] satisfies PipelineBatch);
  };
  const send = () => {
    const bytes = batch();
    out.postMessage(bytes, [bytes.buffer]);
  };
  acks.on("message", (batches: number) => {
    for (let i = 0; i < batches; i++) send();
  });
  for (let i = 0; i < config.window; i++) send();
}

export function runReceiver(input: MessagePort, acks: MessagePort, report: (count: number) => void): void {
  let count = 0;
  input.on("message", (bytes: Uint8Array | "count") => {
    if (bytes === "count") {
      report(count);
      return;
    }
    const [batches, messages] = decodeUnchecked(bytes) as PipelineBatch;
    // Decoded and checked per message, as an actor's cell does before the actor sees it.
    for (const message of messages) decode(message[3]);
    count += messages.length;
    acks.postMessage(batches);
  });
}
