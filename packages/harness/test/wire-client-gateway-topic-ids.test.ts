import { ErrorCode, partitionFor, topicIdFor } from "@kcsim/protocol";
import { decodeResponse, encodeRequest, TopicUuids } from "@kcsim/wire";
import { describe, expect, it } from "vitest";
import { fetchOfPartition0, lastRequest, openGateway } from "./support/gateway-context.js";

/** The Kafka Uuid "orders" travels as: the gateway's TopicUuids gives the same one for the same kcsim id. */
const ORDERS_UUID = new TopicUuids().kafkaIdOf(topicIdFor("orders"));

describe("WireClientGateway: topics by id, groups in batches", () => {
  it("a Metadata v12 topic asked for by its Kafka Uuid reaches the broker by its kcsim id and comes back named", () => {
    const { ctx, gateway, written } = openGateway(0);
    const unknownUuid = "CAAAAAAAAAAAAAAAAAAAAA";
    gateway.data(
      1,
      encodeRequest(
        "Metadata",
        { apiVersion: 12, correlationId: 3, clientId: "app" },
        {
          topics: [
            { topicId: ORDERS_UUID, name: null },
            { topicId: unknownUuid, name: null },
          ],
          allowAutoTopicCreation: false,
          includeClusterAuthorizedOperations: false,
          includeTopicAuthorizedOperations: false,
        },
      ),
    );
    const metadata = lastRequest(ctx);
    expect(metadata.message).toMatchObject({
      type: "MetadataRequest",
      topics: [
        { topicId: topicIdFor("orders"), name: null },
        { topicId: unknownUuid, name: null },
      ],
    });
    gateway.receive("broker-0", {
      type: "MetadataResponse",
      correlationId: metadata.message.correlationId,
      throttleTimeMs: 0,
      brokers: [{ nodeId: 0, host: "broker-0", port: 9092, rack: null }],
      controllerId: 0,
      topics: [
        {
          errorCode: 0,
          name: "orders",
          topicId: topicIdFor("orders"),
          isInternal: false,
          partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, leaderEpoch: 2, replicaNodes: [0], isrNodes: [0] }],
        },
        { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: "", topicId: unknownUuid, isInternal: false, partitions: [] },
      ],
    });
    const answer = decodeResponse("Metadata", 12, (written[0] as Uint8Array).subarray(4));
    expect(answer.body.topics).toMatchObject([
      { name: "orders", topicId: ORDERS_UUID, errorCode: 0, partitions: [{ leaderEpoch: 2 }] },
      { name: null, topicId: unknownUuid, errorCode: ErrorCode.UNKNOWN_TOPIC_ID },
    ]);
  });

  it("a Fetch v13 of a topic id nobody gave out is answered UNKNOWN_TOPIC_ID at once; a known one goes to the broker", () => {
    const { ctx, gateway, written } = openGateway(1);
    const fetch = (correlationId: number, topicId: string) =>
      encodeRequest("Fetch", { apiVersion: 13, correlationId, clientId: "app" }, fetchOfPartition0("", topicId));
    gateway.data(1, fetch(4, "DAAAAAAAAAAAAAAAAAAAAA"));
    expect(ctx.sent).toEqual([]);
    const answer = decodeResponse("Fetch", 13, (written[0] as Uint8Array).subarray(4));
    expect(answer.body.responses).toMatchObject([
      { topicId: "DAAAAAAAAAAAAAAAAAAAAA", partitions: [{ errorCode: ErrorCode.UNKNOWN_TOPIC_ID }] },
    ]);
    gateway.data(1, fetch(5, ORDERS_UUID));
    expect(lastRequest(ctx).message).toMatchObject({ type: "FetchRequest", topics: [{ topicId: topicIdFor("orders") }] });
  });

  it("a batched OffsetFetch goes to the first group's coordinator; a group another coordinator holds is answered NOT_COORDINATOR", () => {
    const groupOn = (coordinator: number) => {
      for (let i = 0; ; i++) if (partitionFor(`g${i}`, 50) % 3 === coordinator) return `g${i}`;
    };
    const [here, elsewhere] = [groupOn(0), groupOn(1)];
    const { ctx, gateway, written } = openGateway(0);
    gateway.data(
      1,
      encodeRequest(
        "OffsetFetch",
        { apiVersion: 9, correlationId: 6, clientId: "app" },
        {
          groupId: "",
          topics: [],
          groups: [
            { groupId: here, memberId: "m-1", memberEpoch: 5, topics: null },
            { groupId: elsewhere, memberId: null, memberEpoch: -1, topics: null },
          ],
          requireStable: true,
        },
      ),
    );
    const sent = lastRequest(ctx);
    expect(sent.to).toBe("coordinator-0");
    expect(sent.message).toMatchObject({ type: "OffsetFetchRequest", groups: [{ groupId: here, memberId: "m-1", memberEpoch: 5 }] });
    gateway.receive("coordinator-0", {
      type: "OffsetFetchResponse",
      correlationId: sent.message.correlationId,
      throttleTimeMs: 0,
      groups: [{ groupId: here, errorCode: 0, topics: [] }],
    });
    const answer = decodeResponse("OffsetFetch", 9, (written[0] as Uint8Array).subarray(4));
    expect(answer.body.groups.map((g) => [g.groupId, g.errorCode])).toEqual([
      [here, 0],
      [elsewhere, ErrorCode.NOT_COORDINATOR],
    ]);
  });
});
