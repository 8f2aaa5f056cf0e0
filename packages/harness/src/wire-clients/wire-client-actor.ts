import type { Actor, ActorId, Context, ControlCommand, JsonValue, Message } from "@kcsim/protocol";
import type { ProducedBatches } from "./produced-batches.js";
import { parseWireClientConfig, type WireClientConfig } from "./wire-client-config.js";
import { type SocketSink, WireClientGateway } from "./wire-client-gateway.js";

/** The actor kind of a real client that `kcsim serve` accepted. */
export const WIRE_CLIENT_KIND = "wire-client";

/** The real sockets behind the client actors (kcsim serve's listeners): where each actor's answers go. */
export interface ClientSockets {
  sinkOf(actor: ActorId, socket: number): SocketSink | undefined;
  /** A new incarnation of `actor` knows none of the sockets the old one had: they are reset. */
  resetAll(actor: ActorId, reason: string): void;
  /** The batches real clients produced, served back as they were written. */
  readonly batches: ProducedBatches;
}

/** Writes nowhere: a client actor replayed from a recording, whose real sockets are gone. */
const DETACHED: SocketSink = { write: () => {}, close: () => {} };

/**
 * One real client (one client.id) that connected to `kcsim serve`: its TCP
 * connections arrive as control commands from the serve host, in the order
 * they happened, so a recording replays them (`socket-open {socket, node}`,
 * `socket-data {socket, data: base64}`, `socket-closed {socket}`), and its
 * WireClientGateway serves them over simulated connections. What the gateway
 * answers goes to the real socket through `ClientSockets` (absent in a
 * replay: the answers go nowhere, the simulated messages are what replay
 * compares).
 */
export class WireClientActor implements Actor {
  readonly #id: ActorId;
  readonly #config: WireClientConfig;
  readonly #sockets: ClientSockets | null;
  #ctx: Context | null = null;
  #gateway: WireClientGateway | null = null;

  constructor(id: ActorId, config: WireClientConfig, sockets: ClientSockets | null) {
    this.#id = id;
    this.#config = config;
    this.#sockets = sockets;
  }

  start(ctx: Context): void {
    this.#ctx = ctx;
    this.#gateway = new WireClientGateway(this.#config, () => this.#ctx as Context, this.#config.records, this.#sockets?.batches ?? null);
    this.#sockets?.resetAll(this.#id, "the client's simulated process restarted");
  }

  receive(from: ActorId, message: Message, ctx: Context): void {
    this.#ctx = ctx;
    this.#gateway?.receive(from, message);
  }

  fire(): void {}

  control(command: ControlCommand, ctx: Context): void {
    this.#ctx = ctx;
    const gateway = this.#gateway;
    const socket = command.socket;
    if (gateway === null || typeof socket !== "number") return;
    switch (command.command) {
      case "socket-open": {
        const node = command.node;
        if (typeof node !== "number") return;
        gateway.open(socket, node, this.#sockets?.sinkOf(this.#id, socket) ?? DETACHED);
        return;
      }
      case "socket-data":
        if (typeof command.data === "string") gateway.data(socket, new Uint8Array(Buffer.from(command.data, "base64")));
        return;
      case "socket-closed":
        gateway.clientClosed(socket);
        return;
      default:
    }
  }

  snapshot(): JsonValue {
    return { sockets: this.#gateway?.openSockets ?? 0 };
  }
}

/** The registry's factory: a detached client actor (recordings replayed, or runs without serve's sockets). */
export function createWireClient(id: ActorId, config: JsonValue): WireClientActor {
  return new WireClientActor(id, parseWireClientConfig("wire-client", config), null);
}
