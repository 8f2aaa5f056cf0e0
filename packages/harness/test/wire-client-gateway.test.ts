import { ErrorCode, partitionFor, topicIdFor } from "@kcsim/protocol";
import { decodeResponse, encodeRequest, ZERO_UUID } from "@kcsim/wire";
import { describe, expect, it } from "vitest";
import { fetchOfPartition0, lastRequest, openGateway } from "./support/gateway-context.js";

describe("WireClientGateway", () => {
  it("sends group requests to the group's coordinator on the node that hosts it, NOT_COORDINATOR elsewhere", () => {
    const index = partitionFor("billing", 50) % 3;
    const heartbeat = (correlationId: number) =>
      encodeRequest(
        "Heartbeat",
        { apiVersion: 3, correlationId, clientId: "app" },
        {
          groupId: "billing",
          generationId: 1,
          memberId: "m",
          groupInstanceId: null,
        },
      );
    const here = openGateway(index);
    here.gateway.data(1, heartbeat(7));
    expect(lastRequest(here.ctx)).toMatchObject({ to: `coordinator-${index}`, connection: "s1", message: { type: "HeartbeatRequest" } });

    const elsewhere = openGateway((index + 1) % 3);
    elsewhere.gateway.data(1, heartbeat(8));
    expect(elsewhere.ctx.sent).toEqual([]);
    const answer = decodeResponse("Heartbeat", 3, (elsewhere.written[0] as Uint8Array).subarray(4));
    expect(answer).toMatchObject({ correlationId: 8, body: { errorCode: ErrorCode.NOT_COORDINATOR } });
  });

  it("auto-creates a topic a Metadata request names: LEADER_NOT_AVAILABLE meanwhile, CreateTopics to the controller", () => {
    const { ctx, gateway, written } = openGateway(0);
    gateway.data(
      1,
      encodeRequest(
        "Metadata",
        { apiVersion: 5, correlationId: 3, clientId: "app" },
        {
          topics: [{ topicId: ZERO_UUID, name: "audit" }],
          allowAutoTopicCreation: true,
          includeClusterAuthorizedOperations: false,
          includeTopicAuthorizedOperations: false,
        },
      ),
    );
    const metadata = lastRequest(ctx);
    expect(metadata).toMatchObject({ to: "broker-0", message: { type: "MetadataRequest", topics: [{ topicId: null, name: "audit" }] } });
    gateway.receive("broker-0", {
      type: "MetadataResponse",
      correlationId: metadata.message.correlationId,
      throttleTimeMs: 0,
      brokers: [0, 1, 2].map((nodeId) => ({ nodeId, host: `broker-${nodeId}`, port: 9092, rack: null })),
      controllerId: 0,
      topics: [{ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: "audit", topicId: "", isInternal: false, partitions: [] }],
    });
    expect(lastRequest(ctx)).toMatchObject({
      to: "controller",
      connection: "admin",
      message: { type: "CreateTopicsRequest", topics: [{ name: "audit", numPartitions: -1, replicationFactor: -1 }] },
    });
    const answer = decodeResponse("Metadata", 5, (written[0] as Uint8Array).subarray(4));
    expect(answer.body.brokers.map((b) => `${b.host}:${b.port}`)).toEqual(["127.0.0.1:9092", "127.0.0.1:9093", "127.0.0.1:9094"]);
    expect(answer.body.topics).toMatchObject([{ name: "audit", errorCode: ErrorCode.LEADER_NOT_AVAILABLE }]);
  });

  it("answers UNKNOWN_TOPIC_OR_PARTITION where a v13 broker says UNKNOWN_TOPIC_ID (a v4-12 fetch names its topics)", () => {
    const { ctx, gateway, written } = openGateway(1);
    const fetch = fetchOfPartition0("orders", ZERO_UUID);
    gateway.data(1, encodeRequest("Fetch", { apiVersion: 11, correlationId: 5, clientId: "app" }, fetch));
    const sent = lastRequest(ctx);
    expect(sent).toMatchObject({ to: "broker-1", message: { type: "FetchRequest", topics: [{ topicId: topicIdFor("orders") }] } });
    const partition = {
      partitionIndex: 0,
      errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
      highWatermark: -1,
      lastStableOffset: -1,
      logStartOffset: -1,
      abortedTransactions: null,
      preferredReadReplica: -1,
      records: [],
    };
    gateway.receive("broker-1", {
      type: "FetchResponse",
      correlationId: sent.message.correlationId,
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [{ topicId: topicIdFor("orders"), partitions: [partition] }],
    });
    const answer = decodeResponse("Fetch", 11, (written[0] as Uint8Array).subarray(4));
    expect(answer.body.responses[0]?.partitions[0]?.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it("closes only the socket whose request kcsim cannot carry (an offset beyond 2^53)", () => {
    const { ctx, gateway, closed } = openGateway(0);
    gateway.open(2, 0, { write: () => {}, close: () => {} });
    gateway.data(
      1,
      encodeRequest(
        "ListOffsets",
        { apiVersion: 1, correlationId: 1, clientId: "app" },
        {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: "orders", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: 2n ** 60n, maxNumOffsets: 1 }] }],
        },
      ),
    );
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatch(/beyond what kcsim's messages carry/);
    expect(ctx.observed).toContainEqual(expect.objectContaining({ type: "wire.unmappable", api: "ListOffsets" }));
    expect(gateway.openSockets).toBe(1);
  });

  it("closes the socket when its broker's process is gone; a coordinator that is down answers COORDINATOR_NOT_AVAILABLE", () => {
    const index = partitionFor("billing", 50) % 3;
    const { ctx, gateway, written, closed } = openGateway(index);
    gateway.data(
      1,
      encodeRequest(
        "OffsetCommit",
        { apiVersion: 5, correlationId: 9, clientId: "app" },
        {
          groupId: "billing",
          generationIdOrMemberEpoch: 1,
          memberId: "m",
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: "orders",
              partitions: [
                { partitionIndex: 0, committedOffset: 10n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null },
              ],
            },
          ],
        },
      ),
    );
    gateway.receive(`coordinator-${index}`, { type: "SimDisconnect", reason: "crashed", connection: "s1" });
    const answer = decodeResponse("OffsetCommit", 5, (written[0] as Uint8Array).subarray(4));
    expect(answer.body.topics[0]?.partitions[0]?.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(closed).toEqual([]);
    expect(ctx.observed).toContainEqual(
      expect.objectContaining({
        type: "member.commit",
        topics: [{ topic: "orders", partitions: [0], offsets: [10] }],
        result: "COORDINATOR_NOT_AVAILABLE",
      }),
    );

    gateway.data(
      1,
      encodeRequest(
        "ListOffsets",
        { apiVersion: 1, correlationId: 10, clientId: "app" },
        {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: "orders", partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n, maxNumOffsets: 1 }] }],
        },
      ),
    );
    gateway.receive(`broker-${index}`, { type: "SimDisconnect", reason: "crashed", connection: "s1" });
    expect(closed).toEqual([`its connection to broker-${index} was reset (crashed)`]);
    expect(gateway.openSockets).toBe(0);
    // Bytes of a closed socket go nowhere.
    gateway.data(
      1,
      encodeRequest("ListOffsets", { apiVersion: 1, correlationId: 11, clientId: "app" }, { replicaId: -1, isolationLevel: 0, topics: [] }),
    );
    expect(ctx.sent.filter((s) => s.message.type === "ListOffsetsRequest")).toHaveLength(1);
  });
});
