import { compareTp } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TopicMetadata } from "../src/consumer/topic-metadata.js";

const metadata = new TopicMetadata([
  { id: "id-a", name: "zeta", partitions: 60 },
  { id: "id-b", name: "alpha", partitions: 60 },
  { id: "id-c", name: "mid", partitions: 60 },
]);

describe("TopicMetadata.resolve", () => {
  it("lists a target's partitions by topic name, then partition, whatever order its topic ids come in", () => {
    const resolved = metadata.resolve(
      new Map([
        ["id-a", [0, 4]],
        ["id-unknown", [1]],
        ["id-c", [2, 3, 10]],
        ["id-b", [5]],
      ]),
    );
    expect(resolved.partitions).toEqual([
      { topic: "alpha", partition: 5 },
      { topic: "mid", partition: 2 },
      { topic: "mid", partition: 3 },
      { topic: "mid", partition: 10 },
      { topic: "zeta", partition: 0 },
      { topic: "zeta", partition: 4 },
    ]);
    expect([...resolved.byId.keys()]).toEqual(["id-a", "id-c", "id-b"]);
    expect(resolved.unresolvedTopicIds).toEqual(["id-unknown"]);
  });

  it("sorts a topic's partitions that do not come ascending, as sorting them all would", () => {
    const resolved = metadata.resolve(
      new Map([
        ["id-a", [7, 1, 3]],
        ["id-b", [2, 2, 0]],
      ]),
    );
    expect(resolved.partitions).toEqual(
      [
        { topic: "zeta", partition: 7 },
        { topic: "zeta", partition: 1 },
        { topic: "zeta", partition: 3 },
        { topic: "alpha", partition: 2 },
        { topic: "alpha", partition: 2 },
        { topic: "alpha", partition: 0 },
      ].sort(compareTp),
    );
  });

  it("gives what sorting every resolved partition gives, for any target", () => {
    const ids = ["id-a", "id-b", "id-c", "id-unknown"];
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...ids)),
        fc.array(fc.array(fc.nat(50), { maxLength: 8 }), { minLength: 4, maxLength: 4 }),
        (order, lists) => {
          const target = new Map(order.map((id) => [id, lists[ids.indexOf(id)] ?? []] as const));
          const expected = order
            .filter((id) => metadata.nameOf(id) !== undefined)
            .flatMap((id) => (target.get(id) ?? []).map((partition) => ({ topic: metadata.nameOf(id) as string, partition })))
            .sort(compareTp);
          expect(metadata.resolve(target).partitions).toEqual(expected);
        },
      ),
    );
  });
});
