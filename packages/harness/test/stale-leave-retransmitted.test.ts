import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { swarmConsumerScenario } from "./helpers.js";

/**
 * Found by swarm seed 11224, shrunk: twelve KIP-848 members; member-9 is paused from 24.1 s to 41.4 s and cut
 * off from the coordinator (both ways) from 28 s to 68.9 s. When the pause ends its poll timer has run out, so it
 * leaves (a heartbeat with epoch -1) and rejoins at once, both on a connection the cut holds back; request.timeout.ms
 * later (71.4 s) the client closes that connection and opens another, and member-9 is a member again. The kernel
 * still retransmits the closed socket's bytes: the leave reaches the coordinator at 92.4 s, 51 s after it was sent.
 * A KIP-848 member keeps its member id when it rejoins, and a leave is taken by member id whatever its epoch
 * (GroupMetadataManager.consumerGroupLeave), so the coordinator removes member-9's current membership and gives its
 * partitions to others, while member-9, which heard nothing of it, goes on fetching them: two owners.
 */
const scenario = swarmConsumerScenario({
  name: "stale-leave-retransmitted",
  seed: 11224,
  durationMs: 95_000,
  topicPartitions: 9,
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 9000,
  members: 12,
  staggerMs: 383,
  consumer: { "max.poll.interval.ms": 15_000, "enable.auto.commit": false, "group.remote.assignor": "uniform" },
  app: { processingMsPerRecord: 0.5, commit: "sync-after-batch" },
  recordsPerSecondPerPartition: 10,
  partitions: [
    { name: "p0", a: ["member-1", "member-5", "member-7"], b: ["coordinator-0"], direction: "a-to-b", startMs: 21_567, endMs: 84_505 },
    {
      name: "p1",
      a: ["member-2", "member-4", "member-7", "member-8", "member-9", "member-12"],
      b: ["coordinator-0"],
      direction: "two-way",
      startMs: 28_012,
      endMs: 68_924,
    },
  ],
  nemesis: [
    { atMs: 24_110, actor: "member-9", action: "pause" },
    { atMs: 41_371, actor: "member-9", action: "resume" },
  ],
});

describe("swarm seed 11224: a leave heartbeat retransmitted on a connection its client had closed", () => {
  it("removes the member's current membership; its partitions get a second owner", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 11224 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["single-owner"]);
    // single-owner tells it as the re-admission it is on the coordinator's side: the stale leave removed member-9's
    // member id, and the rejoin retransmitted right behind it (epoch 0, the same id) admitted it again, as a member
    // holding nothing, while member-9 still owned swarm-4; and the request that admitted it is the rejoin of 41.4 s,
    // delivered on the connection member-9 had closed.
    expect(failing[0]?.[1].violations[0]?.message).toBe(
      "swarm-4 owned by member-9 and member-7 at once: the coordinator removed member-9's member id at 92.382 s (leave) and admitted it again at 92.392 s, while its client still owned swarm-4; it admitted it answering a ConsumerGroupHeartbeat member-9 sent at 41.371 s that arrived at 92.372 s on a connection member-9 had closed at 71.371 s (closed by its client: a request timed out)",
    );

    const events = result.log.toArray();
    const memberIds = new Set(
      events.flatMap((event) =>
        event.ev === "obs" && event.actor === "member-9" && event.o.type === "member.state"
          ? [(event.o as unknown as { memberId: string }).memberId]
          : [],
      ),
    );
    // (Its first membership was expired during the pause; the one removed here is the one it rejoined with.)
    const removal = events.find(
      (event) =>
        event.ev === "obs" &&
        event.o.type === "gc.member-removed" &&
        memberIds.has((event.o as unknown as { memberId: string }).memberId) &&
        (event.o as unknown as { reason: string }).reason === "leave",
    );
    expect(removal).toBeDefined();
    const removedAt = removal?.t as number;

    // The leave: member-9's heartbeat, held by the cut, delivered 51 s after its send, after member-9 closed its connection.
    const carrier = events.find(
      (event) =>
        event.ev === "send" &&
        event.from === "member-9" &&
        event.type === "ConsumerGroupHeartbeatRequest" &&
        event.held === true &&
        removedAt - (event.at[0] as number) >= 0 &&
        removedAt - (event.at[0] as number) < 20_000,
    );
    expect(carrier?.ev).toBe("send");
    if (carrier?.ev !== "send") return;
    expect((carrier.at[0] as number) - carrier.t).toBeGreaterThan(50_000_000);
    const closed = events.find(
      (event) => event.ev === "conn" && event.actor === "member-9" && event.what === "close" && event.gen === carrier.conn,
    );
    expect(closed?.t).toBeLessThan(carrier.at[0] as number);

    // member-9 itself was a member again, and did not leave then: its last state before the removal is STABLE.
    const states = events.flatMap((event) =>
      event.ev === "obs" && event.actor === "member-9" && event.o.type === "member.state" && event.t <= removedAt
        ? [(event.o as unknown as { to: string }).to]
        : [],
    );
    expect(states.at(-1)).toBe("STABLE");
  }, 60_000);
});
