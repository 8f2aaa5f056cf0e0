import { describe, expect, it } from "vitest";
import {
  CooperativeAssignmentError,
  chooseRebalanceProtocol,
  clientAssignor,
  javaHashMapIterationOrder,
  validateCooperativeAssignment,
} from "../src/index.js";
import { tps } from "./assignor-test-support.js";

describe("chooseRebalanceProtocol: the highest protocol every configured assignor supports", () => {
  it("picks COOPERATIVE only when all assignors support it", () => {
    expect(chooseRebalanceProtocol([clientAssignor("cooperative-sticky")])).toBe("COOPERATIVE");
    expect(chooseRebalanceProtocol([clientAssignor("range"), clientAssignor("cooperative-sticky")])).toBe("EAGER");
    expect(chooseRebalanceProtocol([clientAssignor("cooperative-sticky"), clientAssignor("sticky")])).toBe("EAGER");
    expect(chooseRebalanceProtocol([clientAssignor("roundrobin")])).toBe("EAGER");
  });

  it("throws when the assignors share no protocol, or there are none", () => {
    const cooperativeOnly = { name: "custom", supportedProtocols: ["COOPERATIVE"] as const };
    expect(() => chooseRebalanceProtocol([cooperativeOnly, clientAssignor("range")])).toThrow(
      "Specified assignors [custom, range] do not have commonly supported rebalance protocol",
    );
    expect(() => chooseRebalanceProtocol([])).toThrow(/no partition assignors/);
  });

  it("assignors advertise Kafka's names and protocols", () => {
    expect(["range", "roundrobin", "sticky", "cooperative-sticky"].map((n) => clientAssignor(n as "range").name)).toEqual([
      "range",
      "roundrobin",
      "sticky",
      "cooperative-sticky",
    ]);
    expect(clientAssignor("cooperative-sticky").supportedProtocols).toEqual(["COOPERATIVE", "EAGER"]);
  });
});

describe("validateCooperativeAssignment (ConsumerCoordinator)", () => {
  const owned = new Map([
    ["a", tps("t-0", "t-1")],
    ["b", tps("t-2")],
  ]);

  it("accepts revoking without reassigning, keeping, and handing out unowned partitions", () => {
    validateCooperativeAssignment(
      owned,
      new Map([
        ["a", { partitions: tps("t-0") }],
        ["b", { partitions: tps("t-2", "t-3") }],
      ]),
    );
    validateCooperativeAssignment(
      owned,
      new Map([
        ["a", { partitions: tps("t-0", "t-1") }],
        ["b", { partitions: tps("t-2") }],
        ["c", { partitions: [] }],
      ]),
    );
  });

  it("throws when a partition moves straight from one owner to another, naming the partitions", () => {
    const moved = new Map([
      ["a", { partitions: tps("t-0") }],
      ["b", { partitions: tps("t-2", "t-1") }],
    ]);
    expect(() => validateCooperativeAssignment(owned, moved)).toThrow(CooperativeAssignmentError);
    expect(() => validateCooperativeAssignment(owned, moved)).toThrow(/violates its requirements.*t-1$/);
    // A member the leader knows no ownership for owns nothing.
    expect(() => validateCooperativeAssignment(new Map(), new Map([["x", { partitions: tps("t-0") }]]))).not.toThrow();
  });
});

describe("javaHashMapIterationOrder (checked against java.util.HashMap on OpenJDK 17)", () => {
  it("iterates by bucket of the spread String.hashCode, then insertion order", () => {
    expect(javaHashMapIterationOrder(["consumer1", "consumer2", "consumer3", "consumer4"])).toEqual([
      "consumer4",
      "consumer3",
      "consumer2",
      "consumer1",
    ]);
    expect(javaHashMapIterationOrder(["consumer-b", "consumer-a"])).toEqual(["consumer-b", "consumer-a"]);
    expect(javaHashMapIterationOrder(["C1", "C2", "C3"])).toEqual(["C3", "C1", "C2"]);
    expect(javaHashMapIterationOrder(["c0", "c1"])).toEqual(["c0", "c1"]);
  });

  it("grows the table past 12 entries like Java", () => {
    const ids = Array.from({ length: 40 }, (_, i) => `member-${i}`);
    expect(javaHashMapIterationOrder(ids).join(",")).toBe(
      [
        19, 18, 17, 39, 16, 38, 5, 15, 37, 6, 14, 36, 3, 13, 35, 4, 12, 34, 9, 11, 33, 10, 32, 7, 31, 8, 30, 29, 28, 27, 26, 25, 24, 23, 22,
        21, 20, 1, 2, 0,
      ]
        .map((i) => `member-${i}`)
        .join(","),
    );
  });
});
