import { describe, expect, it } from "vitest";
import { type InFlightProduce, InFlightProduceRequests } from "../src/producer/in-flight-produce-requests.js";

const request = (correlationId: number, node: number): InFlightProduce => ({
  correlationId,
  node,
  host: `broker-${node}`,
  sentAt: correlationId * 1000,
  batches: [],
});

describe("InFlightProduceRequests", () => {
  it("keeps the requests in send order as answered ones leave, and counts them per node and per connection", () => {
    const inFlight = new InFlightProduceRequests();
    for (const [id, node] of [
      [7, 0],
      [8, 1],
      [9, 0],
      [10, 2],
      [11, 0],
    ] as const)
      inFlight.add(request(id, node));
    expect(inFlight.delete(9)).toBe(true);
    expect(inFlight.delete(9)).toBe(false);
    expect(inFlight.inSendOrder().map((r) => r.correlationId)).toEqual([7, 8, 10, 11]);
    expect(inFlight.get(10)?.node).toBe(2);
    expect(inFlight.get(9)).toBeUndefined();
    expect(inFlight.countTo(0)).toBe(2);
    expect(inFlight.countOn("broker-0")).toBe(2);
    expect(inFlight.countTo(3)).toBe(0);
    expect(inFlight.size).toBe(4);
    inFlight.add(request(12, 1));
    expect(inFlight.inSendOrder().map((r) => r.correlationId)).toEqual([7, 8, 10, 11, 12]);
  });

  it("refuses a correlation id already in flight: its answer could not be told apart", () => {
    const inFlight = new InFlightProduceRequests();
    inFlight.add(request(1, 0));
    expect(() => inFlight.add(request(1, 1))).toThrow("produce request 1 is already in flight");
  });
});
