import type { MetadataResponse } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { AssignedLeaders } from "../src/consumer/assigned-leaders.js";
import { SubscriptionState } from "../src/consumer/subscription-state.js";
import { ClusterMetadata } from "../src/index.js";
import { metadataResponseOf, P0, P1, P2, TOPICS } from "./fetcher-fixtures.js";

/** Metadata naming `leaders[i]` as the leader of partition i (-1: none). */
function metadataResponse(leaders: readonly number[]): MetadataResponse {
  return metadataResponseOf(leaders.map((leaderId) => ({ leaderId, leaderEpoch: 1 })));
}

describe("AssignedLeaders", () => {
  it("lists the distinct leaders of the assignment, and follows metadata and assignment changes", () => {
    const metadata = new ClusterMetadata(TOPICS);
    const subscriptions = new SubscriptionState();
    const leaders = new AssignedLeaders(metadata, subscriptions);
    expect(leaders.nodes()).toEqual([]);

    subscriptions.assign([P0, P1]);
    // No metadata yet: no leader known.
    expect(leaders.nodes()).toBeNull();

    metadata.update(metadataResponse([1, 1, 2]));
    expect(leaders.nodes()).toEqual([1]);
    subscriptions.assign([P0, P1, P2]);
    expect(leaders.nodes()).toEqual([1, 2]);

    metadata.update(metadataResponse([2, -1, 2]));
    expect(leaders.nodes()).toBeNull();
    subscriptions.assign([P0, P2]);
    expect(leaders.nodes()).toEqual([2]);
  });
});

describe("SubscriptionState resets", () => {
  it("counts the partitions awaiting a reset through every change of state and of assignment", () => {
    const subscriptions = new SubscriptionState();
    subscriptions.assign([P0, P1, P2]);
    expect(subscriptions.needingReset(0)).toEqual([]);

    const [s0, s1, s2] = [P0, P1, P2].map((tp) => subscriptions.get(tp));
    s0?.requestReset("earliest", "no-committed-offset");
    s1?.requestReset("latest", "out-of-range");
    expect(subscriptions.needingReset(0).map((state) => state.key)).toEqual([s0?.key, s1?.key]);
    if (s1 !== undefined) s1.nextRetryAt = 50;
    expect(subscriptions.nextResetRetryAt(0)).toBe(50);
    expect(subscriptions.needingReset(0).map((state) => state.key)).toEqual([s0?.key]);

    s0?.seek(7);
    s2?.clearPosition();
    expect(subscriptions.needingReset(100).map((state) => state.key)).toEqual([s1?.key]);

    // A partition that leaves the assignment no longer counts, whatever happens to its state afterwards.
    subscriptions.assign([P0, P2]);
    s1?.requestReset("earliest", "out-of-range");
    expect(subscriptions.needingReset(100)).toEqual([]);
    expect(subscriptions.nextResetRetryAt(0)).toBeNull();

    s2?.requestReset("earliest", "no-committed-offset");
    expect(subscriptions.needingReset(0).map((state) => state.key)).toEqual([s2?.key]);
  });
});
