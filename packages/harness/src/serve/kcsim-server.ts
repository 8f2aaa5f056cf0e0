import { createServer, type Server, type Socket } from "node:net";
import { join, relative } from "node:path";
import { type ActorId, type JsonValue, resolveBrokerConfig } from "@kcsim/protocol";
import { DATA_CHECKERS, GROUP_CHECKERS } from "../checkers/registry.js";
import { RealtimeHost, type RealtimeRunResult } from "../hosts/realtime/realtime-host.js";
import type { ActorsPerWorker } from "../hosts/worker/shard-plan.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { runMetrics } from "../metrics/run-metrics.js";
import { prepareRunDir } from "../output/output-dir.js";
import { judge, type RunSummary } from "../run/run-scenario.js";
import { writeRunDirectory } from "../run/write-run-directory.js";
import { brokerIds, CONTROLLER_ID, clusterTopics, coordinatorIds } from "../scenario/expand-groups.js";
import { networkOf, ScenarioError, toSimulationSpec } from "../scenario/load-scenario.js";
import type { ScenarioFile } from "../scenario/scenario-schema.js";
import { WIRE_CLIENT_KIND, WireClientActor } from "../wire-clients/wire-client-actor.js";
import type { WireClientConfig } from "../wire-clients/wire-client-config.js";
import { clientActorId, clientIdOfFirstFrame } from "./client-identity.js";
import { ClientSocketTable } from "./client-sockets.js";
import { DEFAULT_SERVE_SCENARIO } from "./default-cluster.js";

/** A served run lasts until it is stopped: its spec's duration is this far away (ten years of virtual time). */
const OPEN_ENDED_US = 10 * 365 * 24 * 3600 * 1_000_000;

export interface ServeOptions {
  /** The cluster, its simulated members and its faults; default: three brokers with auto-created topics (default-cluster.ts). */
  readonly scenario?: ScenarioFile;
  /** The first broker's port (broker i listens on port + i); 0: a free port for each. Default 9092. */
  readonly port?: number;
  /** Where to listen. Default 127.0.0.1. */
  readonly host?: string;
  /** Real seconds per virtual second (default 1: real clients' own timeouts are real seconds). */
  readonly timeScale?: number;
  readonly seed?: number;
  /** Where stop() writes the run directory (history, summary, report, recording); none when absent. */
  readonly out?: string;
  /** Simulated actors per worker thread (default "auto": one worker per core). */
  readonly actorsPerWorker?: ActorsPerWorker;
}

/** The process faults a running cluster's owner can apply to a simulated actor at once (a scenario's nemesis actions). */
export type ProcessFault = "crash" | "restart" | "pause" | "resume";
const PROCESS_FAULTS: readonly string[] = ["crash", "restart", "pause", "resume"] satisfies ProcessFault[];

/** What stop() returns: the run judged by its checkers. */
export interface ServeResult {
  /** Whether every checker passed. */
  readonly ok: boolean;
  readonly summary: RunSummary;
  /** The run directory written, if any. */
  readonly out: string | null;
  /** Real clients (client ids) that connected, by actor id. */
  readonly clients: readonly ActorId[];
}

/** Listens on every port or fails with one line (the port in use, say). */
function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(new ScenarioError(`cannot listen on ${host}:${port}: ${error.code === "EADDRINUSE" ? "address in use" : error.message}`));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

/**
 * `kcsim serve` and `startCluster`: a scenario's cluster on the realtime
 * host, with one TCP listener per broker node. Each real client (one
 * client.id) becomes a `wire-client` actor in the host's main thread, added
 * when its first connection's first request arrives; each of its TCP
 * connections is a socket of that actor's WireClientGateway and rides
 * simulated connections to the broker and coordinator actors, so the
 * scenario's faults, partitions and crashes hit it. Its bytes reach the
 * actor as control commands, which the recording keeps: `kcsim replay`
 * re-runs the client actors too. stop() ends the run, judges it with the
 * group and data checkers (or the scenario's own) and writes the run
 * directory.
 */
export class KcsimServer {
  readonly #host: RealtimeHost;
  readonly #spec: SimulationSpec;
  readonly #scenario: ScenarioFile;
  readonly #servers: Server[];
  readonly #table: ClientSocketTable;
  readonly #open = new Set<Socket>();
  readonly #clients = new Set<ActorId>();
  readonly #wire: WireClientConfig;
  readonly #running: Promise<RealtimeRunResult>;
  readonly #lines: string[];
  readonly #options: ServeOptions;
  #nextSocket = 0;
  #stopped: Promise<ServeResult> | null = null;

  /** host:port of every broker, comma-separated: a client's bootstrap.servers. */
  readonly bootstrapServers: string;
  readonly ports: readonly number[];

  private constructor(
    host: RealtimeHost,
    scenario: ScenarioFile,
    spec: SimulationSpec,
    servers: Server[],
    table: ClientSocketTable,
    wire: WireClientConfig,
    running: Promise<RealtimeRunResult>,
    lines: string[],
    options: ServeOptions,
  ) {
    this.#host = host;
    this.#scenario = scenario;
    this.#spec = spec;
    this.#servers = servers;
    this.#table = table;
    this.#wire = wire;
    this.#running = running;
    this.#lines = lines;
    this.#options = options;
    this.ports = wire.nodes.map((n) => n.port);
    this.bootstrapServers = wire.nodes.map((n) => `${n.host}:${n.port}`).join(",");
    servers.forEach((server, nodeId) => {
      server.on("connection", (socket) => this.#accept(socket, nodeId));
    });
  }

  static async start(options: ServeOptions = {}): Promise<KcsimServer> {
    const scenario = options.scenario ?? DEFAULT_SERVE_SCENARIO;
    const cluster = scenario.cluster;
    const brokers = cluster === undefined ? [] : brokerIds(cluster);
    if (cluster === undefined || brokers.length === 0)
      throw new ScenarioError(
        `${scenario.name}: kcsim serve needs a cluster with brokers (cluster.brokers > 0): real clients fetch and produce through them`,
      );
    if (networkOf(scenario).mode !== "connection")
      throw new ScenarioError(`${scenario.name}: kcsim serve needs the connection network (real clients speak over TCP connections)`);
    const spec = { ...toSimulationSpec(scenario, options.seed !== undefined ? { seed: options.seed } : {}), durationUs: OPEN_ENDED_US };
    // Created, writable and emptied before the run: a served run cannot be produced again, so nothing may be lost after it.
    if (options.out !== undefined) prepareRunDir("--out", options.out);
    const listenHost = options.host ?? "127.0.0.1";
    const basePort = options.port ?? 9092;
    const servers: Server[] = [];
    const ports: number[] = [];
    try {
      for (let i = 0; i < brokers.length; i++) {
        const server = createServer({ noDelay: true });
        servers.push(server);
        ports.push(await listen(server, listenHost, basePort === 0 ? 0 : basePort + i));
      }
    } catch (error) {
      for (const server of servers) server.close();
      throw error;
    }
    const settings = resolveBrokerConfig(cluster.broker ?? {});
    const wire: WireClientConfig = {
      nodes: brokers.map((broker, nodeId) => ({ nodeId, host: listenHost, port: ports[nodeId] as number, broker })),
      coordinators: coordinatorIds(cluster),
      controller: CONTROLLER_ID,
      topics: clusterTopics(cluster).map(({ name, id }) => ({ name, id })),
      clusterId: `kcsim-${scenario.name}`,
      autoCreateTopics: settings["auto.create.topics.enable"],
      offsetsTopicPartitions: settings["offsets.topic.num.partitions"],
      records: "fetched",
    };
    const sockets = new ClientSocketTable();
    const mainThreadKinds: ActorRegistry = new Map([
      [WIRE_CLIENT_KIND, (id: ActorId, config: JsonValue) => new WireClientActor(id, config as unknown as WireClientConfig, sockets)],
    ]);
    const lines: string[] = [];
    const host = new RealtimeHost(spec, {
      timeScale: options.timeScale ?? 1,
      actorsPerWorker: options.actorsPerWorker ?? "auto",
      mainThreadKinds,
      history: { onLine: (line) => lines.push(line) },
      // The recording streams into the run directory as the run goes (kept if the process dies).
      ...(options.out !== undefined ? { recordingFile: join(options.out, "recording.jsonl") } : {}),
    });
    const running = host.run();
    running.catch(() => {});
    await Promise.race([host.whenStarted(), running]);
    return new KcsimServer(host, scenario, spec, servers, sockets, wire, running, lines, options);
  }

  /** The real clients that connected so far, by actor id. */
  get clients(): readonly ActorId[] {
    return [...this.#clients];
  }

  #accept(socket: Socket, nodeId: number): void {
    const id = ++this.#nextSocket;
    this.#open.add(socket);
    socket.setNoDelay(true);
    let actor: ActorId | null = null;
    let first: Buffer[] = [];
    const command = (name: string, fields: Record<string, JsonValue>) => {
      if (actor === null || this.#stopped !== null) return;
      void this.#host.control(actor, { action: "command", command: { command: name, socket: id, ...fields } }).catch(() => {});
    };
    socket.on("data", (chunk: Buffer) => {
      if (actor !== null) {
        command("socket-data", { data: chunk.toString("base64") });
        return;
      }
      first.push(chunk);
      const bytes = Buffer.concat(first);
      const clientId = clientIdOfFirstFrame(bytes);
      if (clientId === undefined) return;
      actor = this.#clientActor(clientId);
      this.#table.add(actor, id, socket);
      command("socket-open", { node: nodeId });
      command("socket-data", { data: bytes.toString("base64") });
      first = [];
    });
    const closed = () => {
      this.#open.delete(socket);
      if (actor === null) return;
      this.#table.remove(actor, id);
      command("socket-closed", {});
    };
    socket.on("close", closed);
    socket.on("error", () => {}); // a reset by the client: 'close' follows
  }

  /** The actor of a client id, added to the running simulation on its first connection. */
  #clientActor(clientId: string | null): ActorId {
    const id = clientActorId(clientId);
    if (!this.#clients.has(id)) {
      this.#clients.add(id);
      this.#host.addActor({ id, kind: WIRE_CLIENT_KIND, config: this.#wire as unknown as JsonValue, startAtUs: 0 });
    }
    return id;
  }

  /**
   * Applies a process fault to a simulated actor now, as a scenario's nemesis step at this instant would (the
   * recording keeps it, so the run replays). A test uses it to time a fault by what its clients did rather than by
   * the clock: a coordinator's crash once its group has settled, say. Real clients are not simulated actors.
   */
  async nemesis(actor: string, action: ProcessFault): Promise<void> {
    // A JavaScript caller's typo, too, is one line.
    if (!PROCESS_FAULTS.includes(action))
      throw new ScenarioError(`nemesis: ${String(action)} ${actor}: not a process fault (${PROCESS_FAULTS.join(", ")})`);
    if (this.#stopped !== null) throw new ScenarioError(`nemesis: ${action} ${actor}: the cluster is stopped`);
    if (this.#clients.has(actor) || !this.#host.actors.some((spec) => spec.id === actor))
      throw new ScenarioError(
        `nemesis: ${action} ${actor}: no simulated actor '${actor}' (${this.#host.actors
          .filter((spec) => !this.#clients.has(spec.id))
          .map((spec) => spec.id)
          .join(", ")})`,
      );
    await this.#host.control(actor, { action });
  }

  /** Ends the run: listeners and connections close, the run is judged and (with `out`) written. Idempotent. */
  stop(): Promise<ServeResult> {
    this.#stopped ??= this.#stop();
    return this.#stopped;
  }

  async #stop(): Promise<ServeResult> {
    for (const server of this.#servers) server.close();
    for (const socket of this.#open) socket.destroy();
    this.#table.destroyAll();
    this.#host.end();
    const result = await this.#running;
    const spec: SimulationSpec = { ...this.#spec, durationUs: result.virtualEndUs, actors: this.#host.actors };
    const scenario = this.#scenario;
    const names = scenario.checkers ?? [...GROUP_CHECKERS, ...DATA_CHECKERS];
    const out = this.#options.out ?? null;
    const summary: RunSummary = {
      scenario: spec.scenario,
      seed: spec.seed,
      host: "realtime",
      historyHash: result.historyHash,
      checks: judge(result, spec, names),
      metrics: runMetrics(result, spec),
      replay:
        out === null
          ? "(a served run replays from its recording: serve it with --out DIR, then kcsim replay DIR)"
          : `pnpm kcsim replay ${relative(process.cwd(), out) || out}`,
    };
    if (out !== null) writeRunDirectory(out, this.#lines, summary, spec, result);
    return { ok: Object.values(summary.checks).every((c) => c.ok), summary, out, clients: this.clients };
  }
}
