import type { Socket } from "node:net";
import type { ActorId } from "@kcsim/protocol";
import { ProducedBatches } from "../wire-clients/produced-batches.js";
import type { ClientSockets } from "../wire-clients/wire-client-actor.js";
import type { SocketSink } from "../wire-clients/wire-client-gateway.js";

/** The TCP connections kcsim serve accepted, by client actor and socket number, and what their clients produced. */
export class ClientSocketTable implements ClientSockets {
  readonly #byActor = new Map<ActorId, Map<number, Socket>>();
  readonly batches = new ProducedBatches();

  add(actor: ActorId, id: number, socket: Socket): void {
    let sockets = this.#byActor.get(actor);
    if (sockets === undefined) {
      sockets = new Map();
      this.#byActor.set(actor, sockets);
    }
    sockets.set(id, socket);
  }

  remove(actor: ActorId, id: number): void {
    this.#byActor.get(actor)?.delete(id);
  }

  sinkOf(actor: ActorId, id: number): SocketSink | undefined {
    const socket = this.#byActor.get(actor)?.get(id);
    if (socket === undefined) return undefined;
    return {
      write: (bytes) => {
        if (!socket.destroyed) socket.write(bytes);
      },
      // Kafka's SocketServer closes the channel: what was written still goes out, then FIN.
      close: () => {
        this.remove(actor, id);
        socket.end();
      },
    };
  }

  resetAll(actor: ActorId, _reason: string): void {
    const sockets = this.#byActor.get(actor);
    if (sockets === undefined) return;
    for (const socket of sockets.values()) socket.resetAndDestroy();
    sockets.clear();
  }

  /** Every socket, reset (the server is stopping). */
  destroyAll(): void {
    for (const sockets of this.#byActor.values()) for (const socket of sockets.values()) socket.destroy();
    this.#byActor.clear();
  }
}
