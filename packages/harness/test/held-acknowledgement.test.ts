import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { swarmConsumerScenario } from "./helpers.js";

// From just after a heartbeat (20.12 s at this seed) and before an auto-commit (20.20 s).
const CUT_FROM_US = 20_150_000;
const CUT_UNTIL_US = 30_000_000;

/**
 * One KIP-848 member auto-committing every second; the coordinator's answers to it are cut (b-to-a) from 20 s to
 * 30 s, its own requests are not. The first request it sends into the cut arrives, but the coordinator's
 * acknowledgement of its bytes is cut with the answers, so the member's socket retransmits that request from its
 * first timeout (200 ms) and holds back what it writes next: the heartbeat written after it waits in the socket and
 * arrives only with a retransmission after the heal, as on a real connection. (Before the router knew of
 * acknowledgements it arrived at once, and the coordinator took the member's heartbeat in the middle of the cut.)
 */
const scenario = swarmConsumerScenario({
  name: "held-acknowledgement",
  seed: 7,
  durationMs: 40_000,
  topicPartitions: 4,
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 5000,
  members: 1,
  staggerMs: 0,
  consumer: { "enable.auto.commit": true, "auto.commit.interval.ms": 1000 },
  app: { processingMsPerRecord: 0.5, commit: "auto" },
  recordsPerSecondPerPartition: 10,
  partitions: [
    {
      name: "answers",
      a: ["member-1"],
      b: ["coordinator-0"],
      direction: "b-to-a",
      startMs: CUT_FROM_US / 1000,
      endMs: CUT_UNTIL_US / 1000,
    },
  ],
});

describe("a one-way cut of a coordinator's answers", () => {
  it("holds back the member's requests written after the first one it sent into the cut", async () => {
    const { result } = await runScenario(scenario, { host: "inline", seed: 7 });
    const requests = result.log
      .toArray()
      .flatMap((event) =>
        event.ev === "send" && event.from === "member-1" && event.to === "coordinator-0" && event.t >= CUT_FROM_US && event.t < CUT_UNTIL_US
          ? [event]
          : [],
      );
    const [first, ...behind] = requests;
    // The first arrives at once: nothing cuts the member's bytes to the coordinator.
    expect(first).toMatchObject({ type: "OffsetCommitRequest", fate: "deliver" });
    expect(first?.held).toBeUndefined();
    expect((first?.at[0] as number) - (first?.t as number)).toBeLessThan(10_000);
    // Everything written from its first retransmission timeout on waits for a retransmission after the heal.
    // (Its answer held, the next auto-commit waits for it: the one request written behind is the next heartbeat.)
    const late = behind.filter((event) => event.t >= (first?.t as number) + 200_000);
    expect(late.map((event) => event.type)).toEqual(["ConsumerGroupHeartbeatRequest"]);
    for (const event of late) {
      expect(event).toMatchObject({ fate: "deliver", held: true, fault: "answers" });
      expect(event.at[0] as number).toBeGreaterThanOrEqual(CUT_UNTIL_US);
    }
  }, 60_000);
});
