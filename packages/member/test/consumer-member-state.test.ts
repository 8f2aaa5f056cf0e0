import { describe, expect, it } from "vitest";
import {
  assertAllowedTransition,
  CLIENT_MEMBER_STATES,
  IllegalStateTransitionError,
  isAllowedTransition,
  isLeavingGroup,
  isNotInGroup,
  shouldHeartbeatNow,
} from "../src/consumer/member-state.js";
import type { ClientMemberState } from "../src/observations.js";

/** Spec 2.1, transcribed independently of the implementation: to <- from. */
const SPEC_2_1: Record<ClientMemberState, ClientMemberState[]> = {
  UNSUBSCRIBED: ["PREPARE_LEAVING", "LEAVING", "FENCED"],
  JOINING: ["FENCED", "UNSUBSCRIBED", "STALE"],
  RECONCILING: ["STABLE", "JOINING", "ACKNOWLEDGING", "RECONCILING"],
  ACKNOWLEDGING: ["RECONCILING"],
  STABLE: ["JOINING", "ACKNOWLEDGING", "RECONCILING"],
  FENCED: ["JOINING", "STABLE", "RECONCILING", "ACKNOWLEDGING", "PREPARE_LEAVING", "LEAVING"],
  PREPARE_LEAVING: ["JOINING", "STABLE", "RECONCILING", "ACKNOWLEDGING", "UNSUBSCRIBED"],
  LEAVING: ["PREPARE_LEAVING"],
  STALE: ["LEAVING"],
  FATAL: ["JOINING", "STABLE", "RECONCILING", "ACKNOWLEDGING", "PREPARE_LEAVING", "LEAVING", "UNSUBSCRIBED"],
};

const pairs = CLIENT_MEMBER_STATES.flatMap((from) => CLIENT_MEMBER_STATES.map((to) => [from, to] as const));

describe("client member state machine (spec 2.1)", () => {
  it("has the ten states", () => {
    expect([...CLIENT_MEMBER_STATES].sort()).toEqual(Object.keys(SPEC_2_1).sort());
  });

  it.each(pairs.filter(([from, to]) => from === to || SPEC_2_1[to].includes(from)))("allows %s -> %s", (from, to) => {
    expect(isAllowedTransition(from, to)).toBe(true);
    expect(() => assertAllowedTransition(from, to)).not.toThrow();
  });

  it.each(pairs.filter(([from, to]) => from !== to && !SPEC_2_1[to].includes(from)))("refuses %s -> %s with an error", (from, to) => {
    expect(isAllowedTransition(from, to)).toBe(false);
    expect(() => assertAllowedTransition(from, to)).toThrow(IllegalStateTransitionError);
    expect(() => assertAllowedTransition(from, to)).toThrow(`Invalid state transition from ${from} to ${to}`);
  });

  it("classifies states as Kafka does", () => {
    expect(CLIENT_MEMBER_STATES.filter(isNotInGroup).sort()).toEqual(["FATAL", "FENCED", "STALE", "UNSUBSCRIBED"]);
    expect(CLIENT_MEMBER_STATES.filter(shouldHeartbeatNow).sort()).toEqual(["ACKNOWLEDGING", "JOINING", "LEAVING"]);
    expect(CLIENT_MEMBER_STATES.filter(isLeavingGroup).sort()).toEqual(["LEAVING", "PREPARE_LEAVING"]);
  });
});
