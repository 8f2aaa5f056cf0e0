import type { MessagePort } from "node:worker_threads";
import type { Endpoint } from "comlink";

/** What comlink hands to addEventListener: a function or an object with handleEvent. */
type MessageListener = ((event: { data: unknown }) => void) | { handleEvent(event: { data: unknown }): void };

/**
 * comlink's Endpoint over a worker_threads MessagePort. comlink's own node
 * adapter is typed against DOM types that do not exist under NodeNext
 * without the DOM lib; this one is typed against node:worker_threads, and
 * the single cast to comlink's Endpoint lives here.
 *
 * The control plane always gets a MessagePort of its own (never the
 * worker's default port, which carries nothing, and never a data port), so
 * protocol traffic and control calls do not share a queue.
 */
export function comlinkEndpoint(port: MessagePort): Endpoint {
  const wrappers = new Map<MessageListener, (data: unknown) => void>();
  const endpoint = {
    postMessage(message: unknown, transfer?: readonly ArrayBuffer[]) {
      port.postMessage(message, transfer === undefined ? undefined : [...transfer]);
    },
    addEventListener(_type: string, listener: MessageListener) {
      const wrapper = (data: unknown) => {
        if (typeof listener === "function") listener({ data });
        else listener.handleEvent({ data });
      };
      wrappers.set(listener, wrapper);
      port.on("message", wrapper);
    },
    removeEventListener(_type: string, listener: MessageListener) {
      const wrapper = wrappers.get(listener);
      if (wrapper === undefined) return;
      port.off("message", wrapper);
      wrappers.delete(listener);
    },
    start() {
      port.start();
    },
  };
  return endpoint as unknown as Endpoint;
}
