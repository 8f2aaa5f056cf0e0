import { describe, expect, it } from "vitest";
import { CLASSIC_CONSUMER_MEMBER_KIND, createClassicConsumerMember } from "../src/classic/classic-consumer-member.js";
import { parseClassicMemberConfig } from "../src/classic/classic-member-config.js";
import { CLASSIC_MEMBER_STATES, isAllowedClassicTransition } from "../src/classic/classic-member-state.js";
import { createConsumerMember } from "../src/consumer/consumer-member.js";
import { ConsumerMemberConfigError } from "../src/consumer/consumer-member-config.js";
import * as member from "../src/index.js";

const minimal = { consumer: { "group.id": "g" }, bootstrap: ["b0"] };

describe("classic-consumer config", () => {
  it("is the consumer actor's shape with group.protocol classic (Kafka's default), assignors and their protocol resolved", () => {
    const config = parseClassicMemberConfig({ ...minimal, subscription: ["t"] });
    expect(config.consumer["group.protocol"]).toBe("classic");
    // Kafka's default list: [RangeAssignor, CooperativeStickyAssignor] share only EAGER.
    expect(config.assignors.map((a) => a.name)).toEqual(["range", "cooperative-sticky"]);
    expect(config.rebalanceProtocol).toBe("EAGER");
    expect(
      parseClassicMemberConfig({ ...minimal, consumer: { ...minimal.consumer, "partition.assignment.strategy": ["cooperative-sticky"] } })
        .rebalanceProtocol,
    ).toBe("COOPERATIVE");
    expect(config.app.commit).toBe("auto");
  });

  it.each([
    [{ ...minimal, consumer: { ...minimal.consumer, "group.protocol": "consumer" } }, "'consumer.group.protocol' must be \"classic\""],
    [{ ...minimal, consumer: { ...minimal.consumer, "group.remote.assignor": "uniform" } }, "group.remote.assignor"],
    [
      { ...minimal, consumer: { ...minimal.consumer, "heartbeat.interval.ms": 10_000, "session.timeout.ms": 10_000 } },
      "'consumer.heartbeat.interval.ms' must be lower than session.timeout.ms",
    ],
    [{ ...minimal, consumer: { ...minimal.consumer, "partition.assignment.strategy": [] } }, "partition.assignment.strategy"],
    [{ ...minimal, consumer: { "group.protocol": "classic" } }, "'consumer.group.id' must be set"],
  ])("rejects %j with a message naming the field", (json, message) => {
    expect(() => parseClassicMemberConfig(json)).toThrow(ConsumerMemberConfigError);
    expect(() => parseClassicMemberConfig(json)).toThrow(message);
  });

  it("the two actor kinds refuse each other's protocol", () => {
    expect(() => createConsumerMember("m", { ...minimal, consumer: { ...minimal.consumer, "group.protocol": "classic" } })).toThrow(
      "'consumer.group.protocol' must be \"consumer\"",
    );
    expect(() => createClassicConsumerMember("m", { ...minimal, consumer: { ...minimal.consumer, "group.protocol": "consumer" } })).toThrow(
      "'consumer.group.protocol' must be \"classic\"",
    );
  });

  it("is exported from the package under the kind the harness uses", () => {
    expect(CLASSIC_CONSUMER_MEMBER_KIND).toBe("classic-consumer");
    expect(member.createClassicConsumerMember).toBe(createClassicConsumerMember);
    expect(member.CLASSIC_MEMBER_STATES).toEqual(["UNJOINED", "PREPARING_REBALANCE", "COMPLETING_REBALANCE", "STABLE", "FATAL"]);
  });
});

describe("classic member state machine", () => {
  const allowed: Record<string, string[]> = {
    UNJOINED: ["PREPARING_REBALANCE", "FATAL"],
    PREPARING_REBALANCE: ["UNJOINED", "COMPLETING_REBALANCE", "FATAL"],
    COMPLETING_REBALANCE: ["UNJOINED", "PREPARING_REBALANCE", "STABLE", "FATAL"],
    STABLE: ["UNJOINED", "PREPARING_REBALANCE", "FATAL"],
    FATAL: [],
  };
  for (const from of CLASSIC_MEMBER_STATES) {
    for (const to of CLASSIC_MEMBER_STATES) {
      const expected = from === to || (allowed[from] ?? []).includes(to);
      it(`${from} -> ${to}: ${expected ? "allowed" : "refused"}`, () => {
        expect(isAllowedClassicTransition(from, to)).toBe(expected);
      });
    }
  }
});
