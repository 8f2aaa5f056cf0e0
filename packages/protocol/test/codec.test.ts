import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import {
  CodecError,
  type ConsumerGroupHeartbeatRequest,
  decode,
  encode,
  encodeValue,
  MESSAGE_SCHEMAS,
  type Message,
} from "../src/index.js";

const heartbeat: ConsumerGroupHeartbeatRequest = {
  type: "ConsumerGroupHeartbeatRequest",
  correlationId: 7,
  apiVersion: 1,
  clientId: "consumer-1",
  groupId: "my-group",
  memberId: "abcdefghijklmnopqrstuv",
  memberEpoch: 12,
  instanceId: null,
  rackId: null,
  rebalanceTimeoutMs: -1,
  subscribedTopicNames: null,
  subscribedTopicRegex: null,
  serverAssignor: null,
  topicPartitions: [{ topicId: "T1-A4s3VTwiI5CTbEp6POw", partitions: [0, 1, 2] }],
};

/** Decoded byte fields come back as Node Buffers (a Uint8Array subclass); compare contents. */
function plain(value: unknown): unknown {
  if (value instanceof Uint8Array) return Array.from(value);
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

function reasonOf(frame: Uint8Array): string {
  try {
    decode(frame);
  } catch (error) {
    expect(error).toBeInstanceOf(CodecError);
    return (error as CodecError).reason;
  }
  throw new Error("decode accepted the frame");
}

describe("codec", () => {
  it("round-trips every message type, with default and with non-trivial values", () => {
    for (const schema of MESSAGE_SCHEMAS) {
      const message = Value.Create(schema) as Message;
      expect(plain(decode(encode(message)))).toEqual(plain(message));
    }
    expect(decode(encode(heartbeat))).toEqual(heartbeat);
  });

  it("shares structures: a heartbeat encodes in fewer bytes than its JSON and than a self-describing map", () => {
    const frame = encode(heartbeat);
    expect(frame.length).toBeLessThan(JSON.stringify(heartbeat).length / 3);
    expect(frame.length).toBeLessThan(120);
  });

  it("decodes messages whose shape sits past the 32nd shared structure (two-byte record ids)", () => {
    // SimPing is the last message; its structure id is above 32.
    const ping: Message = { type: "SimPing", seq: 2 ** 45, payload: "x" };
    expect(decode(encode(ping))).toEqual(ping);
  });

  it("rejects a truncated frame", () => {
    const frame = encode(heartbeat);
    expect(reasonOf(frame.subarray(0, frame.length - 5))).toBe("truncated");
  });

  it("rejects garbage and trailing bytes as malformed", () => {
    expect(reasonOf(Uint8Array.from([0xc1, 0xc1, 0xc1]))).toBe("malformed");
    const frame = encode(heartbeat);
    const longer = new Uint8Array(frame.length + 1);
    longer.set(frame);
    expect(reasonOf(longer)).toBe("malformed");
    expect(reasonOf(encodeValue(42))).toBe("malformed");
    expect(reasonOf(encodeValue({ no: "type" }))).toBe("malformed");
  });

  it("rejects an unknown message type, naming it", () => {
    expect(() => decode(encodeValue({ ...heartbeat, type: "Nope" }))).toThrow(/unknown message type "Nope"/);
  });

  it("rejects a known type with a wrong field, naming the field's path", () => {
    const bad = { ...heartbeat, topicPartitions: [{ topicId: "t", partitions: [0, "one"] }] };
    expect(() => decode(encodeValue(bad))).toThrow(/ConsumerGroupHeartbeatRequest\/topicPartitions\/0\/partitions\/1/);
    expect(() => decode(encodeValue({ ...heartbeat, extra: 1 }))).toThrow(/extra/);
    const { memberEpoch: _dropped, ...missing } = heartbeat;
    expect(() => decode(encodeValue(missing))).toThrow(/memberEpoch/);
    expect(reasonOf(encodeValue({ ...heartbeat, memberEpoch: 1.5 }))).toBe("invalid-shape");
  });

  it("gives every frame its own bytes: re-encoding does not change an earlier frame", () => {
    const first = encode(heartbeat);
    const copy = Uint8Array.from(first);
    for (let i = 0; i < 100; i++) encode({ ...heartbeat, memberEpoch: i });
    expect(Uint8Array.from(first)).toEqual(copy);
  });
});
