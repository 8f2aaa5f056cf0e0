import { ErrorCode, type FindCoordinatorResponse, type JsonValue, type LeaveGroupResponse, topicIdFor } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { createGroupCoordinator, GROUP_COORDINATOR_KIND } from "../src/index.js";
import { CoordinatorUnderTest, coordinatorConfig, heartbeatRequest, SimulatedMember, T1 } from "./coordinator-test-kit.js";

describe("configuration", () => {
  const bad: [string, JsonValue, string][] = [
    ["not an object", [], "config must be an object"],
    ["unknown field", { topics: [], coordinators: ["c"], extra: 1 }, "unknown field 'extra'"],
    [
      "bad broker setting",
      { broker: { "group.consumer.max.size": 0 }, topics: [], coordinators: ["c"] },
      "'broker': broker config 'group.consumer.max.size'",
    ],
    ["topics missing", { coordinators: ["c"] }, "field 'topics'"],
    [
      "bad partitions",
      { topics: [{ name: "T", partitions: 0 }], coordinators: ["c"] },
      "field 'topics[0]'.partitions must be a positive integer",
    ],
    [
      "duplicate topic",
      {
        topics: [
          { name: "T", partitions: 1 },
          { name: "T", partitions: 1 },
        ],
        coordinators: ["c"],
      },
      "listed twice",
    ],
    ["no coordinators", { topics: [], coordinators: [] }, "field 'coordinators'"],
    ["not listed", { topics: [], coordinators: ["other"] }, "must list this actor's id 'c'"],
    ["bad loadMs", { topics: [], coordinators: ["c"], loadMs: -1 }, "field 'loadMs'"],
  ];
  it.each(bad)("rejects %s with one line naming the field", (_name, config, message) => {
    expect(() => createGroupCoordinator("c", config)).toThrow(message);
    try {
      createGroupCoordinator("c", config);
    } catch (error) {
      expect((error as Error).message).not.toContain("\n");
      expect((error as Error).message).toMatch(/^group-coordinator c: config /);
    }
  });

  it("accepts a minimal config and names its kind", () => {
    expect(GROUP_COORDINATOR_KIND).toBe("group-coordinator");
    expect(() => createGroupCoordinator("c", { topics: [{ name: "T", partitions: 3 }], coordinators: ["c"] })).not.toThrow();
  });
});

describe("FindCoordinator", () => {
  it("is answered by every coordinator, from the placement, while loading too", () => {
    const coordinators = ["coordinator-0", "coordinator-1", "coordinator-2"];
    const gc = new CoordinatorUnderTest(coordinatorConfig({ coordinators, loadMs: 1000 }), undefined, "coordinator-2");
    gc.send("client", {
      type: "FindCoordinatorRequest",
      correlationId: 1,
      apiVersion: 4,
      clientId: "c",
      keyType: 0,
      coordinatorKeys: ["my-group", "a", ""],
    });
    // Partitions (spec 5): my-group 12, a 47, "" 0.
    expect(gc.responseTo<FindCoordinatorResponse>(1)?.coordinators).toEqual([
      { key: "my-group", nodeId: 0, host: "coordinator-0", port: 9092, errorCode: 0, errorMessage: null },
      { key: "a", nodeId: 2, host: "coordinator-2", port: 9092, errorCode: 0, errorMessage: null },
      { key: "", nodeId: 0, host: "coordinator-0", port: 9092, errorCode: 0, errorMessage: null },
    ]);
    gc.send("client", {
      type: "FindCoordinatorRequest",
      correlationId: 2,
      apiVersion: 4,
      clientId: "c",
      keyType: 7,
      coordinatorKeys: ["x"],
    });
    expect(gc.responseTo<FindCoordinatorResponse>(2)?.coordinators[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, nodeId: -1 });
  });
});

describe("classic RPCs", () => {
  it("runs the JoinGroup pre-checks; a join without protocols is INCONSISTENT_GROUP_PROTOCOL; Sync/Heartbeat of unknown members are UNKNOWN_MEMBER_ID", () => {
    const gc = new CoordinatorUnderTest(coordinatorConfig({ loadMs: 10 }));
    const join = (correlationId: number, groupId: string, sessionTimeoutMs = 45000) =>
      gc.send("c", {
        type: "JoinGroupRequest",
        correlationId,
        apiVersion: 9,
        clientId: "c",
        groupId,
        sessionTimeoutMs,
        rebalanceTimeoutMs: 300000,
        memberId: "",
        groupInstanceId: null,
        protocolType: "consumer",
        protocols: [],
        reason: null,
      });
    const heartbeat = {
      type: "HeartbeatRequest" as const,
      correlationId: 5,
      apiVersion: 4,
      clientId: "c",
      groupId: "g",
      generationId: 1,
      memberId: "x",
      groupInstanceId: null,
    };
    gc.send("c", heartbeat);
    expect(gc.responseTo(5)).toMatchObject({ errorCode: 0 }); // blindly NONE while loading
    gc.advanceMs(10);
    join(1, "");
    join(2, "g", 10);
    join(3, "g");
    expect([1, 2, 3].map((id) => (gc.responseTo(id) as { errorCode: number }).errorCode)).toEqual([
      ErrorCode.INVALID_GROUP_ID,
      ErrorCode.INVALID_SESSION_TIMEOUT,
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    ]);
    gc.send("c", {
      type: "SyncGroupRequest",
      correlationId: 4,
      apiVersion: 5,
      clientId: "c",
      groupId: "g",
      generationId: 1,
      memberId: "x",
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    });
    expect(gc.responseTo(4)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
    gc.send("c", { ...heartbeat, correlationId: 6 });
    expect(gc.responseTo(6)).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
  });

  it("LeaveGroup removes a static consumer-group member by instance id (admin), refuses consumer-protocol members", () => {
    const gc = new CoordinatorUnderTest();
    new SimulatedMember("s1", ["T1"], "inst-1").heartbeat(gc);
    new SimulatedMember("d1").heartbeat(gc);
    gc.send("admin", {
      type: "LeaveGroupRequest",
      correlationId: 9,
      apiVersion: 5,
      clientId: "admin",
      groupId: "g",
      members: [
        { memberId: "d1", groupInstanceId: null, reason: null },
        { memberId: "s1", groupInstanceId: "inst-1", reason: null },
        { memberId: "", groupInstanceId: "inst-1", reason: "admin" },
        { memberId: "", groupInstanceId: "inst-9", reason: null },
      ],
    });
    const response = gc.responseTo<LeaveGroupResponse>(9);
    expect(response?.errorCode).toBe(0);
    expect(response?.members.map((m) => [m.memberId, m.errorCode])).toEqual([
      ["d1", ErrorCode.UNKNOWN_MEMBER_ID],
      ["s1", ErrorCode.UNKNOWN_MEMBER_ID],
      ["s1", 0],
      ["", ErrorCode.UNKNOWN_MEMBER_ID],
    ]);
    expect(gc.group()).toMatchObject({ groupEpoch: 3, members: [{ memberId: "d1" }] });
    gc.send("admin", { type: "LeaveGroupRequest", correlationId: 10, apiVersion: 5, clientId: "admin", groupId: "none", members: [] });
    expect(gc.responseTo<LeaveGroupResponse>(10)?.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});

describe("control commands", () => {
  it("keeps metadata changes across a restart and ignores bad commands", () => {
    const gc = new CoordinatorUnderTest();
    const m1 = new SimulatedMember("m1", ["T1", "T9"]);
    m1.heartbeat(gc);
    gc.actor.control?.({ command: "add-partitions", topic: "T1", partitions: 80 }, gc.ctx); // shrinking: ignored
    gc.actor.control?.({ command: "add-partitions", topic: "T7", partitions: 80 }, gc.ctx); // unknown: ignored
    gc.actor.control?.({ command: "create-topic", name: "T9", partitions: 6 }, gc.ctx);
    gc.actor.control?.({ command: "something-else" }, gc.ctx);
    m1.heartbeat(gc);
    expect(gc.group().groupEpoch).toBe(2);
    expect(gc.member("m1").assigned).toMatchObject({ T9: [0, 1, 2, 3, 4, 5] });
    gc.restart();
    const topics = (gc.snapshot() as unknown as { topics: unknown[] }).topics;
    expect(topics).toEqual([
      { name: "T1", id: T1.id, partitions: 90 },
      { name: "T9", id: topicIdFor("T9"), partitions: 6 },
    ]);
    expect(gc.heartbeat(heartbeatRequest({ memberId: "m1", memberEpoch: 2 })).errorCode).toBe(0);
    expect(gc.group().groupEpoch).toBe(2);
  });
});
