import { type JsonValue, streamFor, topicIdFor } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { createConsumerMember } from "../src/consumer/consumer-member.js";
import { ConsumerMemberConfigError, parseConsumerMemberConfig } from "../src/consumer/consumer-member-config.js";
import { generateMemberId } from "../src/consumer/member-id.js";

const minimal = { consumer: { "group.id": "g", "group.protocol": "consumer" }, bootstrap: ["b0"] };

function errorOf(config: JsonValue): string {
  try {
    parseConsumerMemberConfig(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConsumerMemberConfigError);
    return (error as Error).message;
  }
  throw new Error("config was accepted");
}

describe("consumer actor config", () => {
  it("fills the defaults", () => {
    const config = parseConsumerMemberConfig({ ...minimal, subscription: ["b", "a", "b"], topics: [{ name: "a", partitions: 3 }] });
    expect(config.subscription).toEqual(["a", "b"]);
    expect(config.topics).toEqual([{ name: "a", id: topicIdFor("a"), partitions: 3 }]);
    expect(config.app).toEqual({
      processingMsPerRecord: 1,
      pollTimeoutMs: 1000,
      revokeCallbackMs: 0,
      assignCallbackMs: 0,
      lostCallbackMs: 0,
      commit: "auto",
      mode: "poll",
      output: null,
      sink: null,
    });
    expect(config.source).toEqual({ kind: "synthetic", recordsPerSecondPerPartition: 10, recordBytes: 100 });
    expect(config.consumer["max.poll.interval.ms"]).toBe(300000);
  });

  it("derives the commit mode from enable.auto.commit and refuses contradictions", () => {
    expect(parseConsumerMemberConfig({ ...minimal, consumer: { ...minimal.consumer, "enable.auto.commit": false } }).app.commit).toBe(
      "none",
    );
    expect(
      parseConsumerMemberConfig({
        ...minimal,
        consumer: { ...minimal.consumer, "enable.auto.commit": false },
        app: { commit: "sync-after-batch" },
      }).app.commit,
    ).toBe("sync-after-batch");
    expect(errorOf({ ...minimal, consumer: { ...minimal.consumer, "enable.auto.commit": false }, app: { commit: "auto" } })).toContain(
      "'app.commit'",
    );
  });

  it.each([
    [{ ...minimal, bootstrap: [] }, "'bootstrap' must not be empty"],
    [{ consumer: minimal.consumer }, "'bootstrap' must be a list of strings"],
    [{ ...minimal, consumer: { "group.id": "g" } }, "'consumer.group.protocol' must be \"consumer\""],
    [{ ...minimal, consumer: { "group.protocol": "consumer" } }, "'consumer.group.id' must be set"],
    [
      { ...minimal, consumer: { ...minimal.consumer, "session.timeout.ms": 10 } },
      "'consumer' is invalid: consumer config 'session.timeout.ms'",
    ],
    [{ ...minimal, consumer: { ...minimal.consumer, "max.poll.records": 0 } }, "max.poll.records"],
    [{ ...minimal, extra: 1 }, "'extra' is not a known field"],
    [{ ...minimal, app: { pollTimeoutMs: 0 } }, "'app.pollTimeoutMs' must be a number from 1 to 86400000"],
    [{ ...minimal, app: { processingMsPerRecord: -1 } }, "'app.processingMsPerRecord'"],
    [{ ...minimal, app: { commit: "sometimes" } }, "'app.commit' must be one of auto, sync-after-batch, none"],
    [{ ...minimal, app: { slow: true } }, "'app.slow' is not a known field"],
    [{ ...minimal, source: { kind: "kafka" } }, "'source.kind' must be \"synthetic\""],
    [{ ...minimal, source: { recordBytes: 0 } }, "'source.recordBytes' must be an integer from 1 to 104857600"],
    [{ ...minimal, subscription: "T1" }, "'subscription' must be a list of strings"],
    [{ ...minimal, topics: [{ name: "T1", partitions: 0 }] }, "'topics[0].partitions' must be a positive integer"],
    [
      {
        ...minimal,
        topics: [
          { name: "T1", partitions: 1 },
          { name: "T1", partitions: 1 },
        ],
      },
      "'topics[1].name' repeats",
    ],
  ] as [JsonValue, string][])("rejects a bad config with one line naming the field (%#)", (config, expected) => {
    const message = errorOf(config);
    expect(message).toContain(expected);
    expect(message).not.toContain("\n");
  });

  it("the factory validates too", () => {
    expect(() => createConsumerMember("m", { ...minimal, bootstrap: [] })).toThrow(ConsumerMemberConfigError);
    expect(createConsumerMember("m", minimal).snapshot?.()).toEqual({ started: false });
  });
});

describe("client-generated member id (KIP-1082)", () => {
  it("is a 22-character base64url UUID from the seeded stream", () => {
    const ids = new Set<string>();
    const random = streamFor(7, "member").next;
    for (let i = 0; i < 500; i++) {
      const id = generateMemberId(random);
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(500);
    expect(generateMemberId(streamFor(7, "x").next)).toBe(generateMemberId(streamFor(7, "x").next));
  });
});
