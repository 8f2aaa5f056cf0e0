import type { RecordRange } from "@kcsim/member";
import { ErrorCode, type Observation } from "@kcsim/protocol";
import { assignmentToKafka, encodeRecordBatch, type WireRequest, type WireRequestOf, ZERO_UUID } from "@kcsim/wire";
import { describe, expect, it } from "vitest";
import { ClientMembership } from "../src/wire-clients/client-membership.js";

function tracker() {
  const observed: Observation[] = [];
  return {
    membership: new ClientMembership(
      { observe: (o) => observed.push(o), now: () => 5_000, topicNameOfKafkaId: () => undefined },
      "fetched",
    ),
    observed,
  };
}

const header = (apiKey: number, apiVersion: number) => ({ apiKey, apiVersion, correlationId: 1, clientId: "app" });

function join(memberId: string): WireRequest {
  const body: WireRequestOf<"JoinGroup"> = {
    groupId: "g",
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 20_000,
    memberId,
    groupInstanceId: null,
    protocolType: "consumer",
    protocols: [],
  };
  return { api: "JoinGroup", header: header(11, 5), body };
}

function sync(generationId: number): WireRequest {
  return {
    api: "SyncGroup",
    header: header(14, 3),
    body: { groupId: "g", generationId, memberId: "m-1", groupInstanceId: null, assignments: [] },
  };
}

const assignment = (partitions: number[]) =>
  assignmentToKafka({ version: 1, assignedPartitions: [{ topic: "orders", partitions }], userData: null });

/** A record batch of `count` records from `baseOffset`, as a Fetch answer carries it. */
const batch = (baseOffset: number, count: number) =>
  encodeRecordBatch({
    baseOffset: BigInt(baseOffset),
    partitionLeaderEpoch: 0,
    compression: "none",
    timestampType: "create-time",
    isTransactional: false,
    isControl: false,
    hasDeleteHorizonMs: false,
    lastOffsetDelta: count - 1,
    baseTimestamp: 0n,
    maxTimestamp: 0n,
    producerId: -1n,
    producerEpoch: -1,
    baseSequence: -1,
    records: Array.from({ length: count }, (_, i) => ({
      attributes: 0,
      timestampDelta: 0n,
      offsetDelta: i,
      key: null,
      value: null,
      headers: [],
    })),
  });

/** A Fetch of one partition of orders from `fetchOffset`. */
const fetch = (fetchOffset: number, partition = 0): WireRequest => ({
  api: "Fetch",
  header: header(1, 11),
  body: {
    clusterId: null,
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 1000,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: "orders",
        topicId: ZERO_UUID,
        partitions: [
          {
            partition,
            currentLeaderEpoch: -1,
            fetchOffset: BigInt(fetchOffset),
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 1000,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: "",
  },
});

/** The answer to `fetch`, bringing `records`. */
const answer = (records: Uint8Array, partition = 0) => ({
  throttleTimeMs: 0,
  errorCode: 0,
  sessionId: 0,
  responses: [
    {
      topic: "orders",
      partitions: [
        {
          partitionIndex: partition,
          errorCode: 0,
          highWatermark: 10n,
          lastStableOffset: 10n,
          logStartOffset: 0n,
          abortedTransactions: null,
          preferredReadReplica: -1,
          records,
        },
      ],
    },
  ],
});

const owned = (observed: Observation[]) => observed.filter((o) => o.type === "member.owned").map((o) => [o.owned, o.cause]);

describe("ClientMembership: a real client's group membership from the wire", () => {
  it("follows an eager member: revokes at JoinGroup, owns its SyncGroup assignment, loses it on UNKNOWN_MEMBER_ID", () => {
    const { membership, observed } = tracker();
    membership.sent(join(""));
    membership.answered(
      join(""),
      {
        throttleTimeMs: 0,
        errorCode: ErrorCode.MEMBER_ID_REQUIRED,
        generationId: -1,
        protocolName: "",
        leader: "",
        memberId: "m-1",
        members: [],
      },
      0,
    );
    membership.sent(join("m-1"));
    membership.answered(
      join("m-1"),
      { throttleTimeMs: 0, errorCode: 0, generationId: 3, protocolName: "RoundRobinAssigner", leader: "m-1", memberId: "m-1", members: [] },
      0,
    );
    membership.answered(sync(3), { throttleTimeMs: 0, errorCode: 0, assignment: assignment([0, 2]) }, 0);
    membership.sent(join("m-1")); // the next rebalance: an eager member gives everything up first
    membership.answered(
      join("m-1"),
      { throttleTimeMs: 0, errorCode: 0, generationId: 4, protocolName: "RoundRobinAssigner", leader: "m-1", memberId: "m-1", members: [] },
      0,
    );
    membership.answered(sync(4), { throttleTimeMs: 0, errorCode: 0, assignment: assignment([1]) }, 0);
    membership.answered(
      { api: "Heartbeat", header: header(12, 3), body: { groupId: "g", generationId: 4, memberId: "m-1", groupInstanceId: null } },
      { throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      0,
    );
    expect(owned(observed)).toEqual([
      [{ orders: [0, 2] }, "assigned"],
      [{}, "revoked"],
      [{ orders: [1] }, "assigned"],
      [{}, "lost"],
    ]);
    expect(observed.filter((o) => o.type === "member.state").map((o) => o.to)).toEqual([
      "PREPARING_REBALANCE",
      "COMPLETING_REBALANCE",
      "STABLE",
      "PREPARING_REBALANCE",
      "COMPLETING_REBALANCE",
      "STABLE",
      "UNJOINED",
    ]);
  });

  it("keeps what a cooperative-sticky member keeps through a rebalance", () => {
    const { membership, observed } = tracker();
    const joined = (generationId: number) => ({
      throttleTimeMs: 0,
      errorCode: 0,
      generationId,
      protocolName: "cooperative-sticky",
      leader: "m-1",
      memberId: "m-1",
      members: [],
    });
    membership.sent(join("m-1"));
    membership.answered(join("m-1"), joined(1), 0);
    membership.answered(sync(1), { throttleTimeMs: 0, errorCode: 0, assignment: assignment([0, 1, 2]) }, 0);
    membership.sent(join("m-1"));
    membership.answered(join("m-1"), joined(2), 0);
    membership.answered(sync(2), { throttleTimeMs: 0, errorCode: 0, assignment: assignment([1, 2]) }, 0);
    expect(owned(observed)).toEqual([
      [{ orders: [0, 1, 2] }, "assigned"],
      [{ orders: [1, 2] }, "revoked"],
    ]);
  });

  it("reports fetched records of a group member only for partitions it owns when the answer arrives: Kafka's clients drop the rest", () => {
    const { membership, observed } = tracker();
    membership.sent(join("m-1"));
    membership.answered(
      join("m-1"),
      { throttleTimeMs: 0, errorCode: 0, generationId: 1, protocolName: "range", leader: "m-1", memberId: "m-1", members: [] },
      0,
    );
    membership.answered(sync(1), { throttleTimeMs: 0, errorCode: 0, assignment: assignment([0]) }, 0);
    membership.answered(fetch(0, 0), answer(batch(0, 3), 0), 0);
    membership.answered(fetch(0, 1), answer(batch(0, 3), 1), 0); // orders-1 is not its own: not handed out
    // kcat's exit: LeaveGroup goes out, and the answer to a Fetch sent before it arrives after it.
    // v3 carries members, not the top-level memberId (v0-v2), which the decoder leaves empty.
    const leave: WireRequestOf<"LeaveGroup"> = { groupId: "g", memberId: "", members: [{ memberId: "m-1", groupInstanceId: null }] };
    membership.sent({ api: "LeaveGroup", header: header(13, 3), body: leave });
    membership.answered(fetch(3, 0), answer(batch(3, 2), 0), 0);
    const ranges = observed.filter((o) => o.type === "member.records").flatMap((o) => o.ranges as RecordRange[]);
    expect(ranges.map((r) => [r.partition, r.firstOffset, r.lastOffset])).toEqual([[0, 0, 2]]);
    // What it dropped is reported apart, one observation per answer: orders-1's records, then orders-0's after the leave.
    const dropped = observed.filter((o) => o.type === "member.records-dropped");
    expect(dropped.map((o) => (o.ranges as RecordRange[]).map((r) => [r.partition, r.firstOffset, r.lastOffset, r.count]))).toEqual([
      [[1, 0, 2, 3]],
      [[0, 3, 4, 2]],
    ]);
    expect(dropped.map((o) => o.memberId)).toEqual(["m-1", ""]);
  });

  it("reports fetched records from the offset asked, once per assignment, and acknowledged produces", () => {
    const { membership, observed } = tracker();
    membership.answered(fetch(3), answer(batch(0, 5)), 0); // a batch from 0 for a fetch from 3: the client keeps 3, 4
    membership.answered(fetch(3), answer(batch(0, 5)), 0); // fetched again in the same assignment: not counted twice
    membership.answered(fetch(5), answer(batch(5, 2)), 0);
    const ranges = observed.filter((o) => o.type === "member.records").flatMap((o) => o.ranges as RecordRange[]);
    expect(ranges.map((r) => [r.firstOffset, r.lastOffset, r.count])).toEqual([
      [3, 4, 2],
      [5, 6, 2],
    ]);

    const produce: WireRequest = {
      api: "Produce",
      header: header(0, 7),
      body: {
        transactionalId: null,
        acks: -1,
        timeoutMs: 1000,
        topicData: [{ name: "orders", partitionData: [{ index: 0, records: batch(0, 3) }] }],
      },
    };
    membership.answered(
      produce,
      {
        throttleTimeMs: 0,
        responses: [
          { name: "orders", partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 40n, logAppendTimeMs: -1n, logStartOffset: 0n }] },
        ],
      },
      1_000,
    );
    expect(observed.find((o) => o.type === "producer.ack")).toMatchObject({
      topic: "orders",
      partition: 0,
      baseOffset: 40,
      lastOffset: 42,
      count: 3,
      acks: "all",
      latencyMs: 4,
    });
  });
});
