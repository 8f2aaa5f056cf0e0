import {
  type ActorId,
  type ConnectionSettings,
  DEFAULT_CONNECTION_SETTINGS,
  ExponentialBackoff,
  expectsResponse,
  isRequest,
  isResponse,
  type Message,
  type Micros,
  type RequestMessage,
  type UniformSource,
} from "@kcsim/protocol";

/**
 * A connection's id on the wire, in every delivery's envelope: 0 for none
 * (datagram mode), +gen for bytes from the client to the server, -gen for
 * bytes from the server to the client. `gen` comes from the client's cell
 * sequence, so (client, gen) names one connection for the whole run.
 */
export type ConnectionWireId = number;

/** What a connection did, for the history ("conn" lines) and the report. */
export type ConnectionEventKind =
  | "connect" // the client started opening it (SYN sent)
  | "ready" // the client saw it accepted
  | "close" // the client closed it (a request timed out, or it read a frame it could not decode)
  | "connect-timeout" // not accepted within socket.connection.setup.timeout.ms
  | "reset"; // the client learned that the server reset, refused or closed it, or that it broke

/** One thing that happened to one of an actor's client connections (the actor is the client). */
export interface ConnectionEvent {
  readonly what: ConnectionEventKind;
  readonly server: ActorId;
  readonly gen: number;
  readonly connection: string;
  readonly reason: string | null;
}

/** What the endpoint needs from its cell: the wire, the actor, timers, the history. */
export interface ConnectionPort {
  now(): Micros;
  /**
   * Puts a message on the wire with its connection id (the cell numbers, encodes and hands it to the sink);
   * `toRank`: the receiver's rank if known (rankOf), else -1 or absent.
   */
  route(to: ActorId, message: Message, wireId: ConnectionWireId, toRank?: number): void;
  /** An actor's origin rank, or -1 (asked once per connection: see CellOptions.rankOf). */
  rankOf(actor: ActorId): number;
  /** What a message is at the moment it is sent (a copy through the codec), for a send the connection must hold back. */
  snapshot(message: Message): Message;
  /** Hands a message to the actor (under the cell's guard). */
  dispatch(from: ActorId, message: Message): void;
  /** A kernel timer ("$..." names, owned by the cell). */
  armTimer(name: string, afterUs: Micros): void;
  cancelTimer(name: string): void;
  record(event: ConnectionEvent): void;
  /** A delivery nothing takes any more (its connection is gone). */
  lost(from: ActorId, msgType: string, why: string): void;
  /** A fresh connection generation (the cell's sequence, which survives crashes). */
  nextGen(): number;
  /** The cell's network random stream (backoff and setup-timeout jitter). */
  readonly random: UniformSource;
}

type ClientState = "waiting" | "connecting" | "ready";

/** One client-side connection of this actor. */
interface ClientConnection {
  readonly server: ActorId;
  /** The server's origin rank, or -1 (ConnectionPort.rankOf). */
  readonly serverRank: number;
  readonly connection: string;
  readonly gen: number;
  state: ClientState;
  /** Messages waiting for the connection to be ready, in send order. */
  readonly unsent: Message[];
  /** Correlation ids of requests sent on it and not yet answered, oldest first. */
  readonly inFlight: number[];
}

/** Kafka's NodeConnectionState: per (server, connection name), across the connections opened to it. */
interface NodeState {
  current: ClientConnection | null;
  /** Consecutive disconnects since the last connection that became ready. */
  failedAttempts: number;
  /** Consecutive connection attempts that did not become ready in time. */
  failedSetups: number;
  /** The last connect attempt or disconnect (Kafka's lastConnectAttemptMs); null before the first. */
  lastAttemptUs: Micros | null;
  /** The reconnect backoff drawn at the last disconnect. */
  backoffUs: Micros;
}

/** One peer's node states: its unnamed connection's (a client's ordinary one) apart from the named ones, found without a lookup. */
interface PeerNodes {
  unnamed: NodeState | null;
  readonly named: Map<string, NodeState>;
}

type ServerState = "open" | "closing" | "reset";

/** One connection a client opened to this actor. */
interface ServerConnection {
  readonly client: ActorId;
  /** The client's origin rank, or -1 (ConnectionPort.rankOf). */
  readonly clientRank: number;
  readonly gen: number;
  readonly connection: string;
  /**
   * open: requests are served one at a time; closing: the client closed it
   * gracefully (FIN): what already arrived is still served, as Kafka's
   * Selector processes a closing channel's staged receives; reset: it broke
   * or was reset: nothing more is served.
   */
  state: ServerState;
  /** The correlation id of the request being served (Kafka's muted channel), or null. */
  busy: number | null;
  /** Requests that arrived while one was being served, in arrival order. */
  readonly waiting: { readonly from: ActorId; readonly message: Message }[];
}

const CONNECT_TIMER = "$connect:";
const RECONNECT_TIMER = "$reconnect:";
const RELEASE_TIMER = "$release:";

/** The reason a SimDisconnect gives when the connection broke in the network. */
export const BROKEN = "broken";

/**
 * One actor's ends of its connections, in its kernel (the cell), the same
 * in every host. As a client it is Kafka's NetworkClient transport:
 * connections opened on first use (a SimConnect answered by the server's
 * kernel), sends held until the connection is ready, responses matched to
 * the oldest request in flight (anything else is a kcsim bug and throws),
 * reconnects after reconnect.backoff.ms doubling to reconnect.backoff.max.ms
 * with jitter, a connect that is not accepted within
 * socket.connection.setup.timeout.ms failing. As a server it is Kafka's
 * SocketServer: a connection's next request is handed to the actor only
 * after the actor answered the previous one (the channel is muted meanwhile),
 * in arrival order.
 */
export class ConnectionEndpoint {
  readonly #port: ConnectionPort;
  #settings: ConnectionSettings = DEFAULT_CONNECTION_SETTINGS;
  #reconnectBackoff = new ExponentialBackoff(
    DEFAULT_CONNECTION_SETTINGS.reconnectBackoffMs,
    DEFAULT_CONNECTION_SETTINGS.reconnectBackoffMaxMs,
    0.2,
  );
  #setupTimeout = new ExponentialBackoff(
    DEFAULT_CONNECTION_SETTINGS.connectionSetupTimeoutMs,
    DEFAULT_CONNECTION_SETTINGS.connectionSetupTimeoutMaxMs,
    0.2,
  );
  /** Kafka's node connection states, by server and connection name. */
  readonly #nodes = new Map<ActorId, PeerNodes>();
  /** Client connections by generation (current ones only). */
  readonly #clientByGen = new Map<number, ClientConnection>();
  /**
   * Server connections by client, in the order they were opened (a client
   * has one or two: an array is searched faster than a map is looked up).
   * Generations are numbered per client.
   */
  readonly #served = new Map<ActorId, ServerConnection[]>();
  /**
   * The peer whose node states were looked up last, and the client whose
   * server connections were (a client writes to one peer in a row, a server
   * answers the client it just heard from): found again without a lookup.
   * A cached entry is always one still in its map.
   */
  #lastPeer: ActorId = "";
  #lastNodes: PeerNodes | null = null;
  #lastClient: ActorId = "";
  #lastServed: ServerConnection[] | null = null;

  constructor(port: ConnectionPort) {
    this.#port = port;
  }

  configure(settings: ConnectionSettings): void {
    this.#settings = settings;
    this.#reconnectBackoff = new ExponentialBackoff(settings.reconnectBackoffMs, settings.reconnectBackoffMaxMs, 0.2);
    this.#setupTimeout = new ExponentialBackoff(settings.connectionSetupTimeoutMs, settings.connectionSetupTimeoutMaxMs, 0.2);
  }

  get settings(): ConnectionSettings {
    return this.#settings;
  }

  // ---- sending ----

  /** The actor sends `message` to `to`. */
  send(to: ActorId, message: Message, connection: string): void {
    if (isResponse(message)) {
      this.#respond(to, message);
      return;
    }
    const request = isRequest(message);
    if (!request) {
      // Not an RPC (SimPing, SimPong): on a connection `to` opened to us if there is one, else on our own.
      const served = this.#latestServerConnection(to);
      if (served !== undefined) {
        this.#port.route(to, message, -served.gen, served.clientRank);
        return;
      }
    }
    const node = this.#node(to, connection);
    let conn = node.current;
    if (conn === null) {
      const gen = this.#port.nextGen();
      conn = { server: to, serverRank: this.#port.rankOf(to), connection, gen, state: "waiting", unsent: [], inFlight: [] };
      node.current = conn;
      this.#clientByGen.set(conn.gen, conn);
      const now = this.#port.now();
      const waitUs = node.lastAttemptUs === null ? 0 : node.lastAttemptUs + node.backoffUs - now;
      if (waitUs <= 0) this.#startConnect(conn, node);
      else this.#port.armTimer(`${RECONNECT_TIMER}${conn.gen}`, waitUs);
    }
    if (conn.state === "ready") this.#transmit(conn, message, request);
    else conn.unsent.push(this.#port.snapshot(message));
  }

  /** The actor closes its connection (a request on it timed out): nothing in flight on it will be answered. */
  close(to: ActorId, connection: string, reason: string): void {
    const node = this.#findNode(to, connection);
    const conn = node?.current;
    if (node === undefined || conn === null || conn === undefined) return;
    this.#drop(conn, node, "close", reason);
    // The FIN: the server serves what it already has and then forgets the connection. (A socket closed in SYN_SENT
    // sends no FIN; this one stands for the reset its kernel answers a late SYN-ACK with, as on a connect timeout.)
    if (conn.state !== "waiting") this.#port.route(to, { type: "SimDisconnect", reason: "closed", connection }, conn.gen);
  }

  /** Sends on a ready connection; `request`: isRequest(message), which the caller already knows. */
  #transmit(conn: ClientConnection, message: Message, request: boolean): void {
    if (request && expectsResponse(message as RequestMessage)) conn.inFlight.push((message as RequestMessage).correlationId);
    this.#port.route(conn.server, message, conn.gen, conn.serverRank);
  }

  #startConnect(conn: ClientConnection, node: NodeState): void {
    conn.state = "connecting";
    node.lastAttemptUs = this.#port.now();
    this.#record("connect", conn, null);
    this.#port.route(conn.server, { type: "SimConnect", connection: conn.connection }, conn.gen, conn.serverRank);
    this.#port.armTimer(`${CONNECT_TIMER}${conn.gen}`, this.#setupTimeout.backoff(node.failedSetups, this.#port.random));
  }

  #respond(client: ActorId, response: Message & { correlationId: number }): void {
    const served = this.#servedBy(client);
    const count = served === undefined ? 0 : served.length;
    for (let i = 0; i < count; i++) {
      const conn = (served as ServerConnection[])[i] as ServerConnection;
      if (conn.busy !== response.correlationId) continue;
      conn.busy = null;
      if (conn.state === "reset") {
        this.#forgetServed(conn);
        this.#port.lost(client, response.type, "its connection was reset before the response");
        return;
      }
      this.#port.route(client, response, -conn.gen, conn.clientRank);
      if (conn.waiting.length > 0) this.#releaseNext(conn);
      else if (conn.state === "closing") this.#forgetServed(conn);
      return;
    }
    throw new Error(
      `connection invariant: ${response.type} to ${client} answers correlation id ${response.correlationId}, which no connection from ${client} is serving`,
    );
  }

  #latestServerConnection(client: ActorId): ServerConnection | undefined {
    // Every message that is not an RPC asks this: the last open one in opening order.
    const served = this.#servedBy(client);
    if (served === undefined) return undefined;
    for (let i = served.length - 1; i >= 0; i--) {
      const conn = served[i] as ServerConnection;
      if (conn.state === "open") return conn;
    }
    return undefined;
  }

  /** The server connection (client, gen), if this actor has it. */
  #servedConnection(client: ActorId, gen: number): ServerConnection | undefined {
    const served = this.#servedBy(client);
    if (served === undefined) return undefined;
    for (const conn of served) if (conn.gen === gen) return conn;
    return undefined;
  }

  /** The server connections `client` opened here, if any. */
  #servedBy(client: ActorId): ServerConnection[] | undefined {
    const last = this.#lastServed;
    if (last !== null && client === this.#lastClient) return last;
    if (this.#served.size === 0) return undefined;
    const served = this.#served.get(client);
    if (served !== undefined) {
      this.#lastClient = client;
      this.#lastServed = served;
    }
    return served;
  }

  // ---- receiving ----

  /**
   * A delivery on a connection. Returns without dispatching what the kernel
   * consumes (connection setup, resets, stale bytes); hands the rest to the
   * actor through the port, muting a server connection while its request is
   * being served.
   */
  receive(from: ActorId, message: Message, wireId: ConnectionWireId): void {
    if (wireId < 0) this.#receiveAsClient(from, message, -wireId);
    else this.#receiveAsServer(from, message, wireId);
  }

  /** A connection id `from` sent on while this actor was not running: what its kernel answers (a reset), or null. */
  static resetFor(message: Message, wireId: ConnectionWireId, reason: string): { message: Message; wireId: ConnectionWireId } | null {
    if (message.type === "SimDisconnect" || wireId === 0) return null;
    // Only a client's bytes (SYN, requests) get a reset back: a response reaching a dead client needs none.
    if (wireId < 0) return null;
    return { message: { type: "SimDisconnect", reason, connection: "" }, wireId: -wireId };
  }

  #receiveAsClient(from: ActorId, message: Message, gen: number): void {
    const conn = this.#clientByGen.get(gen);
    if (conn === undefined || conn.server !== from) {
      if (message.type !== "SimDisconnect" && message.type !== "SimAccept") this.#port.lost(from, message.type, "its connection is closed");
      return;
    }
    if (message.type === "SimAccept") {
      if (conn.state !== "connecting") return;
      const node = this.#node(conn.server, conn.connection);
      this.#port.cancelTimer(`${CONNECT_TIMER}${gen}`);
      conn.state = "ready";
      node.failedAttempts = 0;
      node.failedSetups = 0;
      this.#record("ready", conn, null);
      const unsent = conn.unsent.splice(0);
      for (const pending of unsent) this.#transmit(conn, pending, isRequest(pending));
      return;
    }
    if (message.type === "SimDisconnect") {
      this.#drop(conn, this.#node(conn.server, conn.connection), "reset", message.reason);
      this.#port.dispatch(from, { type: "SimDisconnect", reason: message.reason, connection: conn.connection });
      return;
    }
    if (conn.state !== "ready")
      throw new Error(`connection invariant: ${message.type} from ${from} on connection ${gen} before it was accepted`);
    if (isResponse(message)) {
      const oldest = conn.inFlight[0];
      if (oldest !== message.correlationId)
        throw new Error(
          `connection invariant: ${message.type} from ${from} answers correlation id ${message.correlationId}, but the oldest request in flight on connection ${gen} is ${oldest ?? "none"}`,
        );
      conn.inFlight.shift();
    }
    this.#port.dispatch(from, message);
  }

  #receiveAsServer(from: ActorId, message: Message, gen: number): void {
    if (message.type === "SimConnect") {
      let served = this.#servedBy(from);
      if (served === undefined) {
        served = [];
        this.#served.set(from, served);
      }
      const clientRank = this.#port.rankOf(from);
      const opened: ServerConnection = {
        client: from,
        clientRank,
        gen,
        connection: message.connection,
        state: "open",
        busy: null,
        waiting: [],
      };
      // A generation opened again replaces its connection in its place (as a map's set would).
      const again = served.findIndex((conn) => conn.gen === gen);
      if (again >= 0) served[again] = opened;
      else served.push(opened);
      this.#port.route(from, { type: "SimAccept", connection: message.connection }, -gen, clientRank);
      return;
    }
    const conn = this.#servedConnection(from, gen);
    if (message.type === "SimDisconnect") {
      if (conn === undefined) return;
      if (message.reason === "closed" && conn.state === "open") {
        conn.state = "closing";
        if (conn.busy === null && conn.waiting.length === 0) this.#forgetServed(conn);
      } else {
        this.#resetServer(conn);
      }
      return;
    }
    if (conn === undefined) {
      // No such connection here (this process restarted since): its kernel answers with a reset.
      this.#port.lost(from, message.type, "no such connection");
      this.#port.route(from, { type: "SimDisconnect", reason: "reset", connection: "" }, -gen);
      return;
    }
    if (conn.state === "reset") {
      this.#port.lost(from, message.type, "its connection was reset");
      return;
    }
    if (!isRequest(message)) {
      this.#port.dispatch(from, message);
      return;
    }
    // Muted, or unmuted with earlier requests still queued (their release is an event still to come: a
    // host may hand this delivery over before it, as the realtime host does within one delivery batch):
    // it takes its turn behind them, so requests are served, and answered, in the order they arrived.
    if (conn.busy !== null || conn.waiting.length > 0) {
      conn.waiting.push({ from, message });
      return;
    }
    this.#serve(conn, from, message);
  }

  #serve(conn: ServerConnection, from: ActorId, request: Message): void {
    if (isRequest(request) && expectsResponse(request)) conn.busy = request.correlationId;
    this.#port.dispatch(from, request);
    // A request answered by nothing (acks=0) leaves the channel unmuted: serve the next one.
    if (conn.busy === null && conn.waiting.length > 0) this.#releaseNext(conn);
  }

  /** The channel is unmuted: its next request is served as an event of its own, right after this one. */
  #releaseNext(conn: ServerConnection): void {
    this.#port.armTimer(`${RELEASE_TIMER}${JSON.stringify([conn.client, conn.gen])}`, 0);
  }

  #resetServer(conn: ServerConnection): void {
    conn.waiting.length = 0;
    if (conn.busy === null) this.#forgetServed(conn);
    else conn.state = "reset";
  }

  #forgetServed(conn: ServerConnection): void {
    const served = this.#servedBy(conn.client);
    if (served === undefined) return;
    const i = served.findIndex((other) => other.gen === conn.gen);
    if (i >= 0) served.splice(i, 1);
    if (served.length === 0) {
      this.#served.delete(conn.client);
      this.#lastClient = "";
      this.#lastServed = null;
    }
  }

  // ---- timers ----

  /** A kernel timer of the endpoint; false if `name` is not one. */
  fire(name: string): boolean {
    if (name.startsWith(RELEASE_TIMER)) {
      const [client, gen] = JSON.parse(name.slice(RELEASE_TIMER.length)) as [ActorId, number];
      const conn = this.#servedConnection(client, gen);
      if (conn === undefined || conn.busy !== null || conn.state === "reset") return true;
      const next = conn.waiting.shift();
      if (next !== undefined) this.#serve(conn, next.from, next.message);
      else if (conn.state === "closing") this.#forgetServed(conn);
      return true;
    }
    if (name.startsWith(CONNECT_TIMER)) {
      const conn = this.#clientByGen.get(Number(name.slice(CONNECT_TIMER.length)));
      if (conn === undefined || conn.state !== "connecting") return true;
      const node = this.#node(conn.server, conn.connection);
      this.#drop(conn, node, "connect-timeout", "not accepted within socket.connection.setup.timeout.ms");
      // The socket closes in SYN_SENT: Linux sends nothing, and a SYN-ACK that still comes gets a reset from the
      // client's kernel. The reset goes out now, behind the SYN: a server that accepted the connection drops it
      // (without it, it would keep one the client no longer has), and the router, seeing the socket close, knows
      // that a SYN a partition holds is not sent again (OrphanedSockets.heldSyn).
      this.#port.route(conn.server, { type: "SimDisconnect", reason: "connect-timeout", connection: conn.connection }, conn.gen);
      this.#port.dispatch(conn.server, { type: "SimDisconnect", reason: "connect-timeout", connection: conn.connection });
      return true;
    }
    if (name.startsWith(RECONNECT_TIMER)) {
      const conn = this.#clientByGen.get(Number(name.slice(RECONNECT_TIMER.length)));
      if (conn !== undefined && conn.state === "waiting") this.#startConnect(conn, this.#node(conn.server, conn.connection));
      return true;
    }
    return false;
  }

  // ---- process faults ----

  /**
   * The process died: its kernel resets every connection it had (clients it
   * served learn their requests failed; servers it used forget it), and all
   * connection state goes with the process.
   */
  crash(reason: string): void {
    const resets: [ActorId, ConnectionWireId, string][] = [];
    for (const conn of this.#clientByGen.values()) if (conn.state !== "waiting") resets.push([conn.server, conn.gen, conn.connection]);
    for (const served of this.#served.values())
      for (const conn of served) if (conn.state !== "reset") resets.push([conn.client, -conn.gen, conn.connection]);
    this.#nodes.clear();
    this.#clientByGen.clear();
    this.#served.clear();
    this.#lastPeer = "";
    this.#lastNodes = null;
    this.#lastClient = "";
    this.#lastServed = null;
    for (const [peer, wireId, connection] of resets) this.#port.route(peer, { type: "SimDisconnect", reason, connection }, wireId);
  }

  /**
   * A frame on a connection could not be decoded: the reader closes the
   * connection, as Kafka's client and broker do with a malformed frame. A
   * client tells its actor (its requests on it failed); a server tells the
   * client (its FIN).
   */
  corrupted(from: ActorId, wireId: ConnectionWireId): void {
    if (wireId < 0) {
      const conn = this.#clientByGen.get(-wireId);
      if (conn === undefined || conn.server !== from) return;
      this.close(from, conn.connection, "a frame it could not decode");
      this.#port.dispatch(from, { type: "SimDisconnect", reason: "closed", connection: conn.connection });
      return;
    }
    const conn = this.#servedConnection(from, wireId);
    if (conn === undefined || conn.state === "reset") return;
    this.#resetServer(conn);
    this.#port.route(from, { type: "SimDisconnect", reason: "closed", connection: "" }, -wireId);
  }

  #drop(conn: ClientConnection, node: NodeState, what: ConnectionEventKind, reason: string): void {
    this.#port.cancelTimer(`${CONNECT_TIMER}${conn.gen}`);
    this.#port.cancelTimer(`${RECONNECT_TIMER}${conn.gen}`);
    this.#clientByGen.delete(conn.gen);
    if (node.current === conn) node.current = null;
    // Kafka's ClusterConnectionStates.disconnected: back off before the next attempt, longer setup timeouts after failed
    // setups. A connection still waiting out the backoff never reached the wire: nothing to record.
    if (conn.state !== "waiting") {
      node.lastAttemptUs = this.#port.now();
      node.backoffUs = this.#reconnectBackoff.backoff(node.failedAttempts, this.#port.random);
      node.failedAttempts++;
      if (conn.state === "connecting") node.failedSetups++;
      else node.failedSetups = 0;
      this.#record(what, conn, reason);
    }
  }

  #node(peer: ActorId, connection: string): NodeState {
    let nodes = this.#peerNodes(peer);
    if (nodes === undefined) {
      nodes = { unnamed: null, named: new Map() };
      this.#nodes.set(peer, nodes);
    }
    let node = connection === "" ? nodes.unnamed : (nodes.named.get(connection) ?? null);
    if (node === null) {
      node = { current: null, failedAttempts: 0, failedSetups: 0, lastAttemptUs: null, backoffUs: 0 };
      if (connection === "") nodes.unnamed = node;
      else nodes.named.set(connection, node);
    }
    return node;
  }

  /** The node state (peer, connection), if there is one yet. */
  #findNode(peer: ActorId, connection: string): NodeState | undefined {
    const nodes = this.#peerNodes(peer);
    if (nodes === undefined) return undefined;
    return (connection === "" ? nodes.unnamed : nodes.named.get(connection)) ?? undefined;
  }

  /** The node states of connections to `peer`, if any. */
  #peerNodes(peer: ActorId): PeerNodes | undefined {
    const last = this.#lastNodes;
    if (last !== null && peer === this.#lastPeer) return last;
    const nodes = this.#nodes.get(peer);
    if (nodes !== undefined) {
      this.#lastPeer = peer;
      this.#lastNodes = nodes;
    }
    return nodes;
  }

  #record(what: ConnectionEventKind, conn: ClientConnection, reason: string | null): void {
    this.#port.record({ what, server: conn.server, gen: conn.gen, connection: conn.connection, reason });
  }
}
