import { ErrorCode, type Observation } from "@kcsim/protocol";
import type { WireRequest, WireRequestOf, WireResponseOf } from "@kcsim/wire";
import { describe, expect, it } from "vitest";
import { ClientMembership } from "../src/wire-clients/client-membership.js";

/** A real KIP-848 client's membership, followed from its ConsumerGroupHeartbeat exchanges. */
const ORDERS = "AAAAAAAAAAAAAAAAAAAAAQ";
const PAYMENTS = "AAAAAAAAAAAAAAAAAAAAAg";
const NAMES = new Map([
  [ORDERS, "orders"],
  [PAYMENTS, "payments"],
]);

function tracker() {
  const observed: Observation[] = [];
  const membership = new ClientMembership(
    { observe: (o) => observed.push(o), now: () => 5_000, topicNameOfKafkaId: (id) => NAMES.get(id) },
    "fetched",
  );
  return { membership, observed };
}

type Partitions = { [topicId: string]: number[] };
const topicPartitions = (p: Partitions) => Object.entries(p).map(([topicId, partitions]) => ({ topicId, partitions }));

function heartbeat(memberEpoch: number, owned: Partitions | null, memberId = "m-1"): WireRequest & { api: "ConsumerGroupHeartbeat" } {
  const body: WireRequestOf<"ConsumerGroupHeartbeat"> = {
    groupId: "g",
    memberId,
    memberEpoch,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: memberEpoch === 0 ? 300_000 : -1,
    subscribedTopicNames: memberEpoch === 0 ? ["orders", "payments"] : null,
    subscribedTopicRegex: null,
    serverAssignor: null,
    topicPartitions: owned === null ? null : topicPartitions(owned),
  };
  return { api: "ConsumerGroupHeartbeat", header: { apiKey: 68, apiVersion: 1, correlationId: 1, clientId: "app" }, body };
}

function answer(
  memberEpoch: number,
  assignment: Partitions | null,
  errorCode: number = ErrorCode.NONE,
): WireResponseOf<"ConsumerGroupHeartbeat"> {
  return {
    throttleTimeMs: 0,
    errorCode,
    errorMessage: null,
    memberId: errorCode === ErrorCode.NONE ? "m-1" : null,
    memberEpoch,
    heartbeatIntervalMs: 5_000,
    assignment: assignment === null ? null : { topicPartitions: topicPartitions(assignment) },
  };
}

/** Sends a heartbeat and delivers its answer. */
function exchange(membership: ClientMembership, request: ReturnType<typeof heartbeat>, response: WireResponseOf<"ConsumerGroupHeartbeat">) {
  membership.sent(request);
  membership.answered(request, response, 0);
}

const owned = (observed: Observation[]) =>
  observed.flatMap((o) => (o.type === "member.owned" ? [{ owned: o.owned, cause: o.cause, memberEpoch: o.memberEpoch }] : []));
const states = (observed: Observation[]) =>
  observed.flatMap((o) => (o.type === "member.state" ? [`${o.to}@${o.memberEpoch} (${o.protocol})`] : []));

describe("a KIP-848 client's membership from its heartbeats", () => {
  it("joins at epoch 0 and owns an assignment from the answer that brings it", () => {
    const { membership, observed } = tracker();
    exchange(membership, heartbeat(0, {}), answer(1, { [ORDERS]: [0, 1], [PAYMENTS]: [2] }));
    expect(owned(observed)).toEqual([{ owned: { orders: [0, 1], payments: [2] }, cause: "assigned", memberEpoch: 1 }]);
    expect(states(observed)).toEqual(["JOINING@0 (consumer)", "STABLE@1 (consumer)"]);
    expect(membership.membershipOf("g")).toMatchObject({ memberId: "m-1", generation: 1 });
  });

  it("keeps a partition its new assignment leaves out until a heartbeat no longer lists it", () => {
    const { membership, observed } = tracker();
    exchange(membership, heartbeat(0, {}), answer(1, { [ORDERS]: [0, 1] }));
    exchange(membership, heartbeat(1, { [ORDERS]: [0, 1] }), answer(2, { [ORDERS]: [0] }));
    // Still owned: the client is revoking it (callbacks, a commit) and the coordinator has not heard it done.
    expect(owned(observed).at(-1)).toEqual({ owned: { orders: [0, 1] }, cause: "assigned", memberEpoch: 1 });
    expect(states(observed).at(-1)).toBe("RECONCILING@2 (consumer)");
    membership.sent(heartbeat(2, { [ORDERS]: [0] }));
    expect(owned(observed).at(-1)).toEqual({ owned: { orders: [0] }, cause: "revoked", memberEpoch: 2 });
    expect(states(observed).at(-1)).toBe("STABLE@2 (consumer)");
  });

  it("a heartbeat that does not list a newly assigned partition yet does not give it up", () => {
    const { membership, observed } = tracker();
    exchange(membership, heartbeat(0, {}), answer(1, { [ORDERS]: [0] }));
    exchange(membership, heartbeat(1, { [ORDERS]: [0] }), answer(2, { [ORDERS]: [0, 1] }));
    membership.sent(heartbeat(2, { [ORDERS]: [0] }));
    expect(owned(observed).at(-1)).toEqual({ owned: { orders: [0, 1] }, cause: "assigned", memberEpoch: 2 });
    // A heartbeat without its topic partitions (nothing changed) says nothing of what it owns.
    membership.sent(heartbeat(2, null));
    expect(owned(observed)).toHaveLength(2);
  });

  it("is fenced by FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID: it loses everything and rejoins at epoch 0", () => {
    for (const error of [ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID]) {
      const { membership, observed } = tracker();
      exchange(membership, heartbeat(0, {}), answer(3, { [ORDERS]: [0] }));
      exchange(membership, heartbeat(3, { [ORDERS]: [0] }), answer(3, null, error));
      expect(owned(observed).at(-1)).toEqual({ owned: {}, cause: "lost", memberEpoch: 3 });
      exchange(membership, heartbeat(0, {}), answer(5, { [PAYMENTS]: [1] }));
      expect(states(observed)).toEqual([
        "JOINING@0 (consumer)",
        "STABLE@3 (consumer)",
        "FENCED@3 (consumer)",
        "JOINING@0 (consumer)",
        "STABLE@5 (consumer)",
      ]);
      expect(owned(observed).at(-1)).toEqual({ owned: { payments: [1] }, cause: "assigned", memberEpoch: 5 });
    }
  });

  it("an error that is not fencing changes nothing", () => {
    const { membership, observed } = tracker();
    exchange(membership, heartbeat(0, {}), answer(1, { [ORDERS]: [0] }));
    const before = observed.length;
    exchange(membership, heartbeat(1, { [ORDERS]: [0] }), answer(-1, null, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    expect(observed.length).toBe(before);
    expect(membership.membershipOf("g")?.generation).toBe(1);
  });

  it("leaves with epoch -1 (and a static member with -2): everything is given up when the leave goes out", () => {
    for (const epoch of [-1, -2]) {
      const { membership, observed } = tracker();
      exchange(membership, heartbeat(0, {}), answer(1, { [ORDERS]: [0, 1] }));
      membership.sent(heartbeat(epoch, {}));
      expect(owned(observed).at(-1)).toEqual({ owned: {}, cause: "leave", memberEpoch: 1 });
      membership.answered(heartbeat(epoch, {}), answer(epoch, null), 0);
      expect(states(observed).slice(-2)).toEqual([`LEAVING@${epoch} (consumer)`, `UNSUBSCRIBED@${epoch} (consumer)`]);
    }
  });

  it("partitions of a topic id it does not know are not counted", () => {
    const { membership, observed } = tracker();
    exchange(membership, heartbeat(0, {}), answer(1, { [ORDERS]: [0], AAAAAAAAAAAAAAAAAAAAAw: [4] }));
    expect(owned(observed)).toEqual([{ owned: { orders: [0] }, cause: "assigned", memberEpoch: 1 }]);
  });
});
