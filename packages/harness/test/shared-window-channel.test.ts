import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { createChannelBuffer, WindowChannelMain } from "../src/hosts/lockstep/shared-window-channel.js";

/** The built channel module: a worker thread cannot load TypeScript. */
const BUILT = new URL("../dist/hosts/lockstep/shared-window-channel.js", import.meta.url).href;

/** A worker that serves windows by answering each one with its bytes reversed, until stopped. */
function echoWorker(buffer: SharedArrayBuffer, port: MessagePort): Worker {
  const code = `
    const { workerData } = require("node:worker_threads");
    import(workerData.module).then(({ serveWindows }) => {
      serveWindows(workerData.buffer, workerData.port, (bytes) => bytes.slice().reverse());
      workerData.port.close();
    });
  `;
  return new Worker(code, { eval: true, workerData: { module: BUILT, buffer, port }, transferList: [port] });
}

async function roundTrips(windows: number, regionBytes: number): Promise<void> {
  const buffer = createChannelBuffer(regionBytes);
  const { port1, port2 } = new MessageChannel();
  const worker = echoWorker(buffer, port2);
  const exited = new Promise<number>((resolve) => worker.once("exit", resolve));
  const channel = new WindowChannelMain(buffer, port1);
  try {
    for (let i = 0; i < windows; i++) {
      // Every tenth window is larger than a region: it goes over the port both ways.
      const length = i % 10 === 9 ? regionBytes + 7 : 1 + (i % 50);
      const window = Uint8Array.from({ length }, (_, j) => (i + j) & 0xff);
      channel.post(window);
      expect(channel.wait(10_000)).toBe(true);
      expect(Array.from(channel.read())).toEqual(Array.from(window).reverse());
    }
    channel.stop();
    expect(await exited).toBe(0);
  } finally {
    port1.close();
    await worker.terminate();
  }
}

describe("the shared-memory window channel", () => {
  it("answers every window in order, the ones larger than a region over the port", async () => {
    await roundTrips(300, 256);
  }, 60_000);

  it("a window posted while the worker sleeps in Atomics.wait wakes it", async () => {
    const buffer = createChannelBuffer(256);
    const { port1, port2 } = new MessageChannel();
    const worker = echoWorker(buffer, port2);
    const channel = new WindowChannelMain(buffer, port1);
    try {
      for (let i = 0; i < 3; i++) {
        // The worker has long gone to sleep by the time the window comes.
        await new Promise((resolve) => setTimeout(resolve, 20));
        channel.post(Uint8Array.of(i, 1, 2));
        expect(channel.wait(10_000)).toBe(true);
        expect(Array.from(channel.read())).toEqual([2, 1, i]);
      }
      channel.stop();
    } finally {
      port1.close();
      await worker.terminate();
    }
  }, 60_000);
});
