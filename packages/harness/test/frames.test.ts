import { encode, encodeValue } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { DEFAULT_REGISTRY, InlineHost, LockstepHost, type SimulationSpec } from "../src/index.js";
import { actor, testSpec } from "./helpers.js";

function spec(): SimulationSpec {
  return testSpec({
    durationUs: 500_000,
    actors: [actor("pinger", "pinger", { peer: "ponger", timeoutMs: 5 }), actor("ponger", "ponger")],
  });
}

const good = encode({ type: "SimPing", seq: 1, payload: "x" });
const bad = {
  malformed: Uint8Array.from([0xc1, 0xc1, 0xc1, 0xc1]),
  truncated: good.subarray(0, good.length - 2),
  unknown: encodeValue({ type: "NoSuchMessage", seq: 1 }),
};

describe("bad frames", () => {
  for (const [name, frame] of Object.entries(bad)) {
    it(`a ${name} frame is counted, logged and dropped, and the run goes on`, () => {
      const warnings: string[] = [];
      const host = new InlineHost(spec(), DEFAULT_REGISTRY, {
        loggerFor: () => ({
          debug() {},
          info() {},
          warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
          error() {},
        }),
      });
      host.core.injectFrame(50_000, "intruder", "ponger", frame);
      const result = host.run();
      const rejects = result.events.filter((e) => e.ev === "reject");
      expect(rejects).toHaveLength(1);
      expect(rejects[0]).toMatchObject({ actor: "ponger", from: "intruder", reason: name === "unknown" ? "unknown-type" : name });
      expect(warnings.some((w) => w.includes("frame rejected") && w.includes("intruder"))).toBe(true);
      // The ponger kept answering: pongs before and after the bad frame.
      const pongs = result.events.filter((e) => e.ev === "obs" && e.o.type === "ping.pong");
      expect(pongs.some((e) => e.t < 50_000)).toBe(true);
      expect(pongs.some((e) => e.t > 50_000)).toBe(true);
      expect(result.events.some((e) => e.ev === "error")).toBe(false);
    });
  }

  // On datagrams a damaged frame is rejected on its own; on connections the reader also closes the connection (connections.test.ts).
  it("corrupting faults damage frames in flight; the receiver rejects them and the run goes on", () => {
    const s = spec();
    const corrupting: SimulationSpec = {
      ...s,
      plan: {
        ...s.plan,
        network: { ...s.plan.network, mode: "datagram" },
        messageFaults: [{ name: "bitrot", to: ["ponger"], corrupt: { probability: 0.3, mode: "truncate" } }],
      },
    };
    const result = new InlineHost(corrupting, DEFAULT_REGISTRY).run();
    const corrupted = result.events.filter((e) => e.ev === "send" && e.corrupt === "truncate").length;
    const rejected = result.events.filter((e) => e.ev === "reject" && e.reason === "truncated").length;
    expect(corrupted).toBeGreaterThan(10);
    expect(rejected).toBe(corrupted);
    expect(result.events.filter((e) => e.ev === "obs" && e.o.type === "ping.pong").length).toBeGreaterThan(10);
  });

  it("is judged identically in the lockstep host", async () => {
    const s = spec();
    const corrupting: SimulationSpec = {
      ...s,
      plan: {
        ...s.plan,
        network: { ...s.plan.network, mode: "datagram" },
        messageFaults: [{ name: "bitrot", corrupt: { probability: 0.2, mode: "garbage" } }],
      },
    };
    const inline = new InlineHost(corrupting, DEFAULT_REGISTRY).run();
    const lockstep = await new LockstepHost(corrupting).run();
    expect(inline.events.filter((e) => e.ev === "reject").length).toBeGreaterThan(5);
    expect(lockstep.historyHash).toBe(inline.historyHash);
  });
});
