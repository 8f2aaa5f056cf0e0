import {
  type ActorId,
  type Context,
  type CreateTopicsResponse,
  ErrorCode,
  type FindCoordinatorResponse,
  isResponse,
  type Message,
  type MetadataResponse,
  type Micros,
  partitionFor,
  type RequestMessage,
  type SimDisconnect,
} from "@kcsim/protocol";
import {
  type ApiName,
  consumerGroupHeartbeatToKcsim,
  consumerGroupHeartbeatToWire,
  errorResponseFor,
  fetchToKcsim,
  fetchToWire,
  findCoordinatorToKcsim,
  findCoordinatorToWire,
  heartbeatToKcsim,
  heartbeatToWire,
  initProducerIdToKcsim,
  initProducerIdToWire,
  joinGroupToKcsim,
  joinGroupToWire,
  leaveGroupToKcsim,
  leaveGroupToWire,
  listOffsetsToKcsim,
  listOffsetsToWire,
  metadataToWire,
  offsetCommitToKcsim,
  offsetCommitToWire,
  offsetFetchToKcsim,
  offsetFetchToWire,
  produceToKcsim,
  produceToWire,
  syncGroupToKcsim,
  syncGroupToWire,
  TopicUuids,
  WireError,
  type WireMappingContext,
  type WireRequest,
  type WireResponseBody,
  type WireResponseOf,
  WireServerConnection,
  ZERO_UUID,
} from "@kcsim/wire";
import { ClientMembership, type RecordsSource } from "./client-membership.js";
import type { ProducedBatches } from "./produced-batches.js";
import type { WireClientConfig, WireClientNode } from "./wire-client-config.js";

/** Where a socket's bytes go: the real TCP socket (kcsim serve) or KafkaJS's in-simulation socket. */
export interface SocketSink {
  write(bytes: Uint8Array): void;
  /** The server closes the connection (Kafka's SocketServer closing a channel, or the broker's process gone). */
  close(reason: string): void;
}

/** A request handed to a simulated actor, waiting for its answer. */
interface Pending {
  readonly request: WireRequest;
  readonly backend: ActorId;
  readonly sentAt: Micros;
  /** The kcsim answer as the wire's (the request's own leftovers, e.g. produce partitions rejected before it, go in here). */
  readonly answer: (response: Message) => WireResponseBody;
}

interface GatewaySocket {
  readonly id: number;
  readonly node: WireClientNode;
  /** The name of this socket's simulated connections (one to each actor it talks to). */
  readonly connection: string;
  readonly wire: WireServerConnection;
  readonly sink: SocketSink;
  /** The kcsim correlation id of the request in flight, if any (one at a time, as the wire connection is muted meanwhile). */
  pending: number | null;
  readonly backends: Set<ActorId>;
  closed: boolean;
}

/** The simulated connection the gateway's own requests ride (topic auto-creation). */
const ADMIN_CONNECTION = "admin";

/** Disconnects that mean the peer's process is gone, not that the network broke. */
const BROKEN = new Set(["broken", "connect-timeout", "closed"]);

/**
 * The server side of a real client's Kafka connections inside the
 * simulation: each socket is one TCP connection of the client to one
 * broker node, and rides one simulated connection (named after the socket)
 * to each actor behind that node, so the router's connection faults apply
 * to it. Requests are decoded (WireServerConnection: one at a time, as
 * Kafka's SocketServer serves them), mapped to kcsim's messages
 * (@kcsim/wire's mapping) and sent to the actor that serves them:
 *
 * - Metadata, Produce, Fetch, ListOffsets, InitProducerId: the node's broker;
 * - FindCoordinator: a coordinator; the answer names the node that hosts
 *   the group's coordinator (coordinator i lives on node i mod nodes);
 * - JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
 *   ConsumerGroupHeartbeat: the group's coordinator when this node hosts
 *   it, else NOT_COORDINATOR at once;
 * - CreateTopics, and topics a Metadata request auto-creates
 *   (auto.create.topics.enable, while the request allows it; answered
 *   LEADER_NOT_AVAILABLE meanwhile, as Kafka does): the controller.
 *
 * A broker whose process is gone, or a connection that breaks, closes the
 * socket (what a client sees when a broker dies). A coordinator that is
 * down while a group request waits answers it COORDINATOR_NOT_AVAILABLE,
 * as a broker does whose coordinator partition has no leader. Everything
 * the client does is also followed by ClientMembership, which reports it
 * as the simulated members report theirs.
 */
export class WireClientGateway {
  readonly #config: WireClientConfig;
  readonly #context: () => Context;
  readonly membership: ClientMembership;
  readonly #sockets = new Map<number, GatewaySocket>();
  readonly #pending = new Map<number, { readonly socket: GatewaySocket; readonly pending: Pending }>();
  readonly #topicIds = new Map<string, string>();
  readonly #topicNames = new Map<string, string>();
  /** The Kafka Uuids topics travel as where the wire names them by id. */
  readonly #uuids = new TopicUuids();
  /** Topics whose auto-creation was asked and not answered yet. */
  readonly #creating = new Set<string>();
  readonly #mapping: WireMappingContext;
  readonly #batches: ProducedBatches | null;
  #correlationId = 0;

  /** `batches`: where real clients' produced batch bytes are kept, to serve them back as written (kcsim serve). */
  constructor(config: WireClientConfig, context: () => Context, records: RecordsSource, batches: ProducedBatches | null = null) {
    this.#config = config;
    this.#context = context;
    this.#batches = batches;
    for (const topic of config.topics) this.#learnTopic(topic.name, topic.id);
    this.membership = new ClientMembership(
      {
        observe: (o) => context().observe(o),
        now: () => context().now(),
        topicNameOfKafkaId: (kafkaId) => {
          const id = this.#uuids.kcsimIdOf(kafkaId);
          return id === undefined ? undefined : this.#topicNames.get(id);
        },
      },
      records,
    );
    const nodes = new Map(config.nodes.map((n) => [n.nodeId, n]));
    this.#mapping = {
      topicIdOf: (name) => this.#topicIds.get(name),
      topicNameOf: (id) => this.#topicNames.get(id),
      endpointOf: (nodeId) => nodes.get(nodeId),
      kafkaTopicIdOf: (id) => this.#uuids.kafkaIdOf(id),
      // A Uuid no topic was given out as reaches the coordinator as it is: an unknown topic there.
      kcsimTopicIdOf: (kafkaId) => this.#uuids.kcsimIdOf(kafkaId) ?? kafkaId,
    };
  }

  /** The node a client reaches at host:port, if the cluster has one there. */
  nodeAt(host: string, port: number): WireClientNode | undefined {
    return this.#config.nodes.find((n) => n.host === host && n.port === port);
  }

  get openSockets(): number {
    return this.#sockets.size;
  }

  /** A new TCP connection of the client to node `nodeId`. */
  open(id: number, nodeId: number, sink: SocketSink): void {
    const node = this.#config.nodes.find((n) => n.nodeId === nodeId);
    if (node === undefined) throw new RangeError(`no node ${nodeId} in the cluster`);
    if (this.#sockets.has(id)) throw new RangeError(`socket ${id} is already open`);
    const socket: GatewaySocket = {
      id,
      node,
      connection: `s${id}`,
      sink,
      pending: null,
      backends: new Set(),
      closed: false,
      wire: new WireServerConnection({
        send: (bytes) => sink.write(bytes),
        request: (request) => this.#guarded(socket, request.api, () => this.#handle(socket, request)),
        close: (reason) => this.#shut(socket, reason.message, true),
      }),
    };
    this.#sockets.set(id, socket);
  }

  /** Bytes the client wrote on socket `id`. */
  data(id: number, bytes: Uint8Array): void {
    this.#sockets.get(id)?.wire.receive(bytes);
  }

  /** The client closed socket `id` (or its process is gone): what it had in flight is abandoned. */
  clientClosed(id: number): void {
    const socket = this.#sockets.get(id);
    if (socket !== undefined) this.#shut(socket, "closed by the client", false);
  }

  /** A message for the gateway from a simulated actor; false if it is not one of the gateway's. */
  receive(from: ActorId, message: Message): boolean {
    if (message.type === "SimDisconnect") {
      this.#disconnected(from, message);
      return true;
    }
    if (message.type === "CreateTopicsResponse" && !this.#pending.has(message.correlationId)) {
      this.#autoCreated(message);
      return true;
    }
    if (!isResponse(message)) return false;
    const entry = this.#pending.get(message.correlationId);
    if (entry === undefined || entry.pending.backend !== from) return true; // its socket is gone
    this.#pending.delete(message.correlationId);
    const { socket, pending } = entry;
    this.#guarded(socket, pending.request.api, () => this.#answer(socket, pending, pending.answer(message)));
    return true;
  }

  /**
   * Runs a step of a socket's request; a WireError from the mapping (a value kcsim's messages cannot
   * carry, such as an offset beyond 2^53) closes that socket, as Kafka closes a connection whose request
   * it cannot handle, instead of failing the whole client.
   */
  #guarded(socket: GatewaySocket, api: string, step: () => void): void {
    try {
      step();
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      this.#context().log.warn("request failed in the mapping", { api, reason: error.message });
      this.#context().observe({ type: "wire.unmappable", api, reason: error.message });
      this.#shut(socket, error.message, true);
    }
  }

  // ---- requests ----

  #handle(socket: GatewaySocket, request: WireRequest): void {
    this.membership.sent(request);
    switch (request.api) {
      case "Metadata":
        this.#metadata(socket, request);
        return;
      case "CreateTopics":
        this.#createTopics(socket, request);
        return;
      case "Produce":
        this.#produce(socket, request);
        return;
      case "Fetch":
        this.#fetch(socket, request);
        return;
      case "ListOffsets":
        this.#forward(socket, request, socket.node.broker, listOffsetsToKcsim(request.header, request.body), (r) =>
          listOffsetsToWire(expect(r, "ListOffsetsResponse"), request.header.apiVersion),
        );
        return;
      case "InitProducerId":
        this.#forward(socket, request, socket.node.broker, initProducerIdToKcsim(request.header, request.body), (r) =>
          initProducerIdToWire(expect(r, "InitProducerIdResponse")),
        );
        return;
      case "FindCoordinator": {
        const coordinators = this.#config.coordinators;
        const backend = coordinators[socket.node.nodeId % coordinators.length] as ActorId;
        this.#forward(socket, request, backend, findCoordinatorToKcsim(request.header, request.body), (r) =>
          findCoordinatorToWire(this.#onNodes(expect(r, "FindCoordinatorResponse")), this.#mapping, request.header.apiVersion),
        );
        return;
      }
      case "ApiVersions":
        return; // answered by the wire connection itself
      default: {
        const coordinator = this.#coordinatorHere(socket, groupIdOf(request));
        if (coordinator === null) {
          this.#answerNow(socket, request, errorResponseFor(request, ErrorCode.NOT_COORDINATOR, "This is not the correct coordinator."));
          return;
        }
        this.#group(socket, request, coordinator);
      }
    }
  }

  /** The group RPCs, to the group's coordinator. */
  #group(socket: GatewaySocket, request: WireRequest, coordinator: ActorId): void {
    const h = request.header;
    const consumer = (groupId: string) => this.membership.protocolTypeOf(groupId) === "consumer";
    switch (request.api) {
      case "JoinGroup": {
        const isConsumer = request.body.protocolType === "consumer";
        this.#forward(socket, request, coordinator, joinGroupToKcsim(h, request.body), (r) =>
          joinGroupToWire(expect(r, "JoinGroupResponse"), isConsumer),
        );
        return;
      }
      case "SyncGroup": {
        const isConsumer = consumer(request.body.groupId);
        this.#forward(socket, request, coordinator, syncGroupToKcsim(h, request.body, isConsumer), (r) =>
          syncGroupToWire(expect(r, "SyncGroupResponse"), isConsumer),
        );
        return;
      }
      case "Heartbeat":
        this.#forward(socket, request, coordinator, heartbeatToKcsim(h, request.body), (r) =>
          heartbeatToWire(expect(r, "HeartbeatResponse")),
        );
        return;
      case "LeaveGroup":
        this.#forward(socket, request, coordinator, leaveGroupToKcsim(h, request.body), (r) =>
          leaveGroupToWire(expect(r, "LeaveGroupResponse"), h.apiVersion),
        );
        return;
      case "OffsetCommit":
        this.#forward(socket, request, coordinator, offsetCommitToKcsim(h, request.body), (r) =>
          offsetCommitToWire(expect(r, "OffsetCommitResponse")),
        );
        return;
      case "OffsetFetch": {
        // v8+ may ask for several groups: those another coordinator holds are answered NOT_COORDINATOR, as a broker
        // answers the groups it does not coordinate (each group on its own).
        const kcsim = offsetFetchToKcsim(h, request.body);
        const here = kcsim.groups.filter((g) => this.#coordinatorHere(socket, g.groupId) === coordinator);
        const elsewhere = kcsim.groups
          .filter((g) => !here.includes(g))
          .map((g) => ({ groupId: g.groupId, topics: [], errorCode: ErrorCode.NOT_COORDINATOR }));
        this.#forward(socket, request, coordinator, { ...kcsim, groups: here }, (r) => {
          const response = expect(r, "OffsetFetchResponse");
          return offsetFetchToWire({ ...response, groups: [...response.groups, ...elsewhere] }, h.apiVersion);
        });
        return;
      }
      case "ConsumerGroupHeartbeat":
        this.#forward(socket, request, coordinator, consumerGroupHeartbeatToKcsim(h, request.body, this.#mapping), (r) =>
          consumerGroupHeartbeatToWire(expect(r, "ConsumerGroupHeartbeatResponse"), this.#mapping),
        );
        return;
      default:
        throw new Error(`${request.api} is not a group request`);
    }
  }

  #metadata(socket: GatewaySocket, request: WireRequest & { api: "Metadata" }): void {
    const { header, body } = request;
    // v0's empty list and v1+'s null list mean every topic.
    const all = body.topics === null || (header.apiVersion === 0 && body.topics.length === 0);
    const kcsim = {
      type: "MetadataRequest" as const,
      correlationId: 0,
      apiVersion: 12,
      clientId: header.clientId,
      // From v10 a topic may be asked for by its id instead of its name (a null or empty name, a non-zero id).
      topics: all
        ? null
        : (body.topics ?? []).map((t) =>
            header.apiVersion >= 10 && (t.name === null || t.name === "") && t.topicId !== ZERO_UUID
              ? { topicId: this.#uuids.kcsimIdOf(t.topicId) ?? t.topicId, name: null }
              : { topicId: null, name: t.name ?? "" },
          ),
    };
    const autoCreate = this.#config.autoCreateTopics && (header.apiVersion < 4 || body.allowAutoTopicCreation);
    this.#forward(socket, request, socket.node.broker, kcsim, (r) => {
      const response = expect(r, "MetadataResponse");
      for (const topic of response.topics) if (topic.errorCode === ErrorCode.NONE) this.#learnTopic(topic.name, topic.topicId);
      const wire = metadataToWire(this.#liveNodes(response), this.#mapping, this.#config.clusterId, header.apiVersion);
      if (!autoCreate) return wire;
      const missing = wire.topics.flatMap((t) => (t.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && t.name !== null ? [t.name] : []));
      this.#autoCreate(missing);
      return {
        ...wire,
        topics: wire.topics.map((t) =>
          t.name !== null && missing.includes(t.name) ? { ...t, errorCode: ErrorCode.LEADER_NOT_AVAILABLE } : t,
        ),
      };
    });
  }

  /** Metadata names brokers by their node ids: the listeners are the gateway's, whatever host the actor is. */
  #liveNodes(response: MetadataResponse): MetadataResponse {
    return { ...response, brokers: response.brokers.filter((b) => this.#mapping.endpointOf(b.nodeId) !== undefined) };
  }

  #autoCreate(names: readonly string[]): void {
    const controller = this.#config.controller;
    const wanted = names.filter((name) => !this.#creating.has(name));
    if (controller === null || wanted.length === 0) return;
    for (const name of wanted) this.#creating.add(name);
    const ctx = this.#context();
    ctx.send(
      controller,
      {
        type: "CreateTopicsRequest",
        correlationId: this.#nextCorrelationId(),
        apiVersion: 7,
        clientId: ctx.self,
        topics: wanted.map((name) => ({ name, numPartitions: -1, replicationFactor: -1 })),
        validateOnly: false,
      },
      ADMIN_CONNECTION,
    );
  }

  #autoCreated(response: CreateTopicsResponse): void {
    for (const topic of response.topics) {
      this.#creating.delete(topic.name);
      if (topic.errorCode === ErrorCode.NONE) this.#learnTopic(topic.name, topic.topicId);
    }
  }

  #createTopics(socket: GatewaySocket, request: WireRequest & { api: "CreateTopics" }): void {
    const { header, body } = request;
    const controller = this.#config.controller;
    if (controller === null) {
      this.#answerNow(socket, request, errorResponseFor(request, ErrorCode.INVALID_REQUEST, "this cluster has no controller"));
      return;
    }
    const manual = new Set(body.topics.filter((t) => t.assignments.length > 0).map((t) => t.name));
    const kcsim = {
      type: "CreateTopicsRequest" as const,
      correlationId: 0,
      apiVersion: header.apiVersion,
      clientId: header.clientId,
      topics: body.topics
        .filter((t) => !manual.has(t.name))
        .map((t) => ({ name: t.name, numPartitions: t.numPartitions, replicationFactor: t.replicationFactor })),
      validateOnly: header.apiVersion >= 1 && body.validateOnly,
    };
    this.#forward(socket, request, controller, kcsim, (r) => {
      const response = expect(r, "CreateTopicsResponse");
      for (const topic of response.topics)
        if (topic.errorCode === ErrorCode.NONE && !kcsim.validateOnly) this.#learnTopic(topic.name, topic.topicId);
      return {
        throttleTimeMs: 0,
        topics: body.topics.map((t) => {
          if (manual.has(t.name))
            return {
              name: t.name,
              errorCode: ErrorCode.INVALID_REQUEST,
              errorMessage: "kcsim places replicas itself: no manual assignments",
            };
          const created = response.topics.find((x) => x.name === t.name);
          return {
            name: t.name,
            errorCode: created?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR,
            errorMessage: created?.errorMessage ?? null,
          };
        }),
      };
    });
  }

  #produce(socket: GatewaySocket, request: WireRequest & { api: "Produce" }): void {
    const mapped = produceToKcsim(request.header, request.body);
    if (mapped.request === undefined || request.body.acks === 0) {
      if (mapped.request !== undefined) this.#send(socket, socket.node.broker, mapped.request);
      // acks=0 is never answered (WireServerConnection writes nothing, or closes the connection if a partition failed).
      this.#answerNow(socket, request, produceToWire(undefined, mapped.rejected));
      return;
    }
    const kcsim = mapped.request;
    this.#forward(socket, request, socket.node.broker, kcsim, (r) => {
      const response = expect(r, "ProduceResponse");
      const batches = this.#batches;
      if (batches !== null) {
        for (const topic of response.responses) {
          for (const p of topic.partitionResponses) {
            if (p.errorCode !== ErrorCode.NONE || p.baseOffset < 0) continue;
            const bytes = mapped.batchBytes.get(`${topic.name}-${p.index}`);
            const batch = kcsim.topicData.find((t) => t.name === topic.name)?.partitionData.find((x) => x.index === p.index)?.records;
            if (bytes !== undefined && batch !== undefined) batches.put(topic.name, p.index, p.baseOffset, batch, bytes);
          }
        }
      }
      return produceToWire(response, mapped.rejected);
    });
  }

  #fetch(socket: GatewaySocket, request: WireRequest & { api: "Fetch" }): void {
    const version = request.header.apiVersion;
    const { request: kcsim, unknownTopics } = fetchToKcsim(request.header, request.body, this.#mapping);
    // Kafka answers a topic it does not know UNKNOWN_TOPIC_OR_PARTITION when it is named, UNKNOWN_TOPIC_ID (v13+) when
    // its id is.
    const unknownError = version >= 13 ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const unknown = (): WireResponseOf<"Fetch">["responses"] => {
      const topics = request.body.topics.filter((t) => unknownTopics.includes(version >= 13 ? t.topicId : t.topic));
      const answer = errorResponseFor({ ...request, body: { ...request.body, topics } }, unknownError);
      return (answer as WireResponseOf<"Fetch">).responses;
    };
    if (kcsim.topics.length === 0 && unknownTopics.length > 0) {
      this.#answerNow(socket, request, { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses: unknown() });
      return;
    }
    this.#forward(socket, request, socket.node.broker, kcsim, (r) => {
      const batches = this.#batches;
      const stored = batches === null ? undefined : batches.bytesOf.bind(batches);
      const wire = fetchToWire(expect(r, "FetchResponse"), this.#mapping, stored, version);
      if (version >= 13) return { ...wire, responses: [...wire.responses, ...unknown()] };
      // kcsim's brokers speak Fetch v13 (topic ids): a topic id they do not know yet (a restarted broker before
      // the controller's metadata) is UNKNOWN_TOPIC_ID, which a client that asks by name (Fetch v12 and below) cannot
      // get: Kafka answers those UNKNOWN_TOPIC_OR_PARTITION, which every client retries.
      const responses = wire.responses.map((t) => ({
        ...t,
        partitions: t.partitions.map((p) =>
          p.errorCode === ErrorCode.UNKNOWN_TOPIC_ID ? { ...p, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION } : p,
        ),
      }));
      return {
        ...wire,
        errorCode: wire.errorCode === ErrorCode.UNKNOWN_TOPIC_ID ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : wire.errorCode,
        responses: [...responses, ...unknown()],
      };
    });
  }

  // ---- plumbing ----

  /** The coordinator actor of `groupId` if this socket's node hosts it, else null. */
  #coordinatorHere(socket: GatewaySocket, groupId: string): ActorId | null {
    const coordinators = this.#config.coordinators;
    const index = partitionFor(groupId, this.#config.offsetsTopicPartitions) % coordinators.length;
    const node = this.#config.nodes[index % this.#config.nodes.length] as WireClientNode;
    return node.nodeId === socket.node.nodeId ? (coordinators[index] as ActorId) : null;
  }

  /** FindCoordinator's node id is the coordinator's index; the client reaches it at the node that hosts it. */
  #onNodes(response: FindCoordinatorResponse): FindCoordinatorResponse {
    const nodes = this.#config.nodes;
    return {
      ...response,
      coordinators: response.coordinators.map((c) =>
        c.errorCode === ErrorCode.NONE ? { ...c, nodeId: (nodes[c.nodeId % nodes.length] as WireClientNode).nodeId } : c,
      ),
    };
  }

  #forward(
    socket: GatewaySocket,
    request: WireRequest,
    backend: ActorId,
    message: RequestMessage,
    answer: (response: Message) => WireResponseBody,
  ): void {
    const correlationId = this.#send(socket, backend, message);
    socket.pending = correlationId;
    this.#pending.set(correlationId, { socket, pending: { request, backend, sentAt: this.#context().now(), answer } });
  }

  /** Sends a request on this socket's connection to `backend`; returns the kcsim correlation id it carries. */
  #send(socket: GatewaySocket, backend: ActorId, message: RequestMessage): number {
    const correlationId = this.#nextCorrelationId();
    socket.backends.add(backend);
    this.#context().send(backend, { ...message, correlationId } as RequestMessage, socket.connection);
    return correlationId;
  }

  #nextCorrelationId(): number {
    this.#correlationId = (this.#correlationId + 1) % 0x7fffffff;
    return this.#correlationId;
  }

  #answerNow(socket: GatewaySocket, request: WireRequest, body: WireResponseBody): void {
    this.#answer(socket, { request, backend: "", sentAt: this.#context().now(), answer: () => body }, body);
  }

  #answer(socket: GatewaySocket, pending: Pending, body: WireResponseBody): void {
    socket.pending = null;
    if (socket.closed) return;
    this.membership.answered(pending.request, body, pending.sentAt);
    try {
      socket.wire.respond(pending.request.api as ApiName, body as never);
    } catch (error) {
      // A kcsim answer the request's version cannot carry: a gap in the mapping. The client sees the connection close.
      const reason = error instanceof Error ? error.message : String(error);
      this.#context().log.error("unencodable answer", { api: pending.request.api, version: pending.request.header.apiVersion, reason });
      this.#context().observe({ type: "wire.unencodable", api: pending.request.api, version: pending.request.header.apiVersion, reason });
      this.#shut(socket, `an answer it could not encode: ${reason}`, true);
    }
  }

  #disconnected(from: ActorId, message: SimDisconnect): void {
    if (message.connection === ADMIN_CONNECTION) {
      this.#creating.clear(); // asked again by the next Metadata request that finds them missing
      return;
    }
    const coordinator = this.#config.coordinators.includes(from) && !this.#config.nodes.some((n) => n.broker === from);
    for (const socket of [...this.#sockets.values()]) {
      if (!socket.backends.has(from) || (message.connection !== "*" && message.connection !== socket.connection)) continue;
      socket.backends.delete(from);
      const entry = socket.pending === null ? undefined : this.#pending.get(socket.pending);
      if (coordinator && !BROKEN.has(message.reason)) {
        // The coordinator's process is down: its group requests fail, the node's connection stays.
        if (entry !== undefined && entry.pending.backend === from) {
          this.#pending.delete(socket.pending as number);
          const error = errorResponseFor(entry.pending.request, ErrorCode.COORDINATOR_NOT_AVAILABLE, "The coordinator is not available.");
          this.#answer(socket, entry.pending, error);
        }
        continue;
      }
      this.#shut(socket, `its connection to ${from} ${message.reason === "broken" ? "broke" : `was reset (${message.reason})`}`, true);
    }
  }

  /** Ends a socket: its simulated connections close, what is in flight is abandoned; `byServer`: the client is told. */
  #shut(socket: GatewaySocket, reason: string, byServer: boolean): void {
    if (socket.closed) return;
    socket.closed = true;
    this.#sockets.delete(socket.id);
    if (socket.pending !== null) this.#pending.delete(socket.pending);
    socket.pending = null;
    const ctx = this.#context();
    for (const backend of socket.backends) ctx.closeConnection(backend, socket.connection);
    if (!socket.wire.closed) socket.wire.close(new WireError("malformed", reason));
    if (byServer) socket.sink.close(reason);
    ctx.log.debug("socket closed", { socket: socket.id, node: socket.node.nodeId, reason });
  }

  #learnTopic(name: string, id: string): void {
    this.#topicIds.set(name, id);
    this.#topicNames.set(id, name);
    this.#uuids.kafkaIdOf(id);
  }
}

/** The kcsim answer, which must be of the type the request asked for. */
function expect<T extends Message["type"]>(message: Message, type: T): Extract<Message, { type: T }> {
  if (message.type !== type) throw new Error(`expected a ${type}, got a ${message.type}`);
  return message as Extract<Message, { type: T }>;
}

/** The group a group request names (every API this is asked for has a groupId; a batched OffsetFetch, v8+, its first group's). */
function groupIdOf(request: WireRequest): string {
  if (request.api === "OffsetFetch" && request.header.apiVersion >= 8) return request.body.groups[0]?.groupId ?? "";
  return (request.body as { readonly groupId: string }).groupId;
}
