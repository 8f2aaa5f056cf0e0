import { describe, expect, it } from "vitest";
import { assignClientSide, type ClientSideAssignorName } from "../src/index.js";

const topics = [
  { name: "T2", partitions: 2 },
  { name: "T1", partitions: 3 },
];

describe("assignClientSide (CLI helper)", () => {
  it("client-range: every member present, topics sorted, partitions ascending", () => {
    const result = assignClientSide("client-range", {
      topics,
      members: [
        { id: "B", instanceId: null, subscriptions: ["T1"] },
        { id: "A", instanceId: null, subscriptions: ["T2", "T1"] },
        { id: "C", instanceId: null, subscriptions: [] },
      ],
    });
    expect(result).toEqual({ B: { T1: [2] }, A: { T1: [0, 1], T2: [0, 1] }, C: {} });
    expect(Object.keys(result.A ?? {})).toEqual(["T1", "T2"]);
  });

  it("roundrobin honours instance ids", () => {
    const result = assignClientSide("roundrobin", {
      topics: [{ name: "T1", partitions: 3 }],
      members: [
        { id: "A", instanceId: null, subscriptions: ["T1"] },
        { id: "B", instanceId: "z", subscriptions: ["T1"] },
      ],
    });
    expect(result).toEqual({ A: { T1: [1] }, B: { T1: [0, 2] } });
  });

  it("sticky: owned + generation ride in user data; array order is the iteration order", () => {
    const member = (id: string, owned: number[]) => ({
      id,
      instanceId: null,
      subscriptions: ["T1", "T2"],
      owned: owned.length ? { T1: owned } : {},
      generation: 1,
    });
    // 5 partitions over 3 members: min 1, max 2, two members may hold 2. B (first) keeps its 2,
    // A keeps its 1 and waits at min, C fills up to min first, then A takes the last one.
    const input = { topics, members: [member("B", [0, 1]), member("A", [2]), member("C", [])] };
    expect(assignClientSide("sticky", input)).toEqual({ B: { T1: [0, 1] }, A: { T1: [2], T2: [1] }, C: { T2: [0] } });
  });

  it("cooperative-sticky withholds partitions that change owner until the next round", () => {
    const input = {
      topics: [{ name: "T1", partitions: 4 }],
      members: [
        { id: "A", instanceId: null, subscriptions: ["T1"], owned: { T1: [0, 1, 2, 3] }, generation: 3 },
        { id: "B", instanceId: null, subscriptions: ["T1"], generation: 3 },
      ],
    };
    expect(assignClientSide("cooperative-sticky", input)).toEqual({ A: { T1: [0, 1] }, B: {} });
    const round2 = {
      ...input,
      members: [
        { ...input.members[0], owned: { T1: [0, 1] }, generation: 4 },
        { ...input.members[1], generation: 4 },
      ],
    };
    expect(assignClientSide("cooperative-sticky", round2)).toEqual({ A: { T1: [0, 1] }, B: { T1: [2, 3] } });
  });

  it.each([
    [null, "input: expected an object"],
    [{ topics: [], members: [], extra: 1 }, "extra: unknown field"],
    [{ members: [] }, "topics: expected an array"],
    [{ topics: [{ name: "T1" }], members: [] }, "topics[0].partitions: expected a partition count"],
    [{ topics: [{ name: "", partitions: 1 }], members: [] }, "topics[0].name: expected a non-empty topic name"],
    [
      {
        topics: [
          { name: "T1", partitions: 1 },
          { name: "T1", partitions: 2 },
        ],
        members: [],
      },
      'topics[1].name: duplicate topic "T1"',
    ],
    [{ topics, members: {} }, "members: expected an array"],
    [{ topics, members: [{ id: "A", subscriptions: "T1" }] }, "members[0].subscriptions: expected an array of topic names"],
    [
      {
        topics,
        members: [
          { id: "A", subscriptions: ["T1"] },
          { id: "A", subscriptions: [] },
        ],
      },
      'members[1].id: duplicate member id "A"',
    ],
    [{ topics, members: [{ id: "A", subscriptions: ["T1", "T1"] }] }, 'members[0].subscriptions: topic "T1" listed twice'],
    [
      { topics, members: [{ id: "A", subscriptions: [], owned: { T1: [3] } }] },
      "members[0].owned.T1: partition 3 does not exist (T1 has 3)",
    ],
    [
      { topics, members: [{ id: "A", subscriptions: [], owned: { T1: [-1] } }] },
      "members[0].owned.T1: expected an array of partition numbers",
    ],
    [{ topics, members: [{ id: "A", subscriptions: [], generation: 1.5 }] }, "members[0].generation: expected an integer >= -1"],
    [
      { topics, members: [{ id: "A", subscriptions: [], instanceId: 7 }] },
      "members[0].instanceId: expected a non-empty group.instance.id or null",
    ],
    [{ topics, members: [{ id: "A", subscription: [] }] }, "members[0].subscription: unknown field"],
  ])("rejects bad input with one line naming the field: %j", (input, message) => {
    expect(() => assignClientSide("sticky", input)).toThrow(message);
    try {
      assignClientSide("sticky", input);
    } catch (error) {
      expect(String((error as Error).message)).not.toContain("\n");
    }
  });

  it("rejects an unknown assignor name and accepts owned partitions of deleted topics", () => {
    expect(() => assignClientSide("range" as ClientSideAssignorName, { topics, members: [] })).toThrow(
      'assignor: expected one of client-range, roundrobin, sticky, cooperative-sticky, got "range"',
    );
    const result = assignClientSide("cooperative-sticky", {
      topics: [{ name: "T1", partitions: 1 }],
      members: [{ id: "A", subscriptions: ["T1"], owned: { Gone: [0] }, generation: 2 }],
    });
    expect(result).toEqual({ A: { T1: [0] } });
  });
});
