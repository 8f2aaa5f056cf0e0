import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * Swarm seed 101973 (at 5455fb3), shrunk: three static KIP-848 members on three partitions. member-5's requests to
 * the coordinator are cut from 80.1 s to 118.4 s while its application thread is held up from 77.2 s to 103.3 s.
 * Its poll timer runs out at 92.0 s: a static member leaves with epoch -2, then rejoins with epoch 0 when the
 * application polls again (103.3 s), both on the connection the cut holds. At 112.3 s a request times out and the
 * client closes that connection; at 124.9 s it rejoins on a new one, at epoch 5 with nothing yet (its partition is
 * still being revoked from member-2), and its heartbeats go on at epoch 5. The kernel still retransmits the closed
 * socket's bytes: a heartbeat of 82.3 s, the first the cut held, is the socket's head, and its eighth retransmission,
 * 51 s after it, takes the leave and the rejoin with it, at 133.3 s. The leave
 * (epoch -2, taken whatever the member's epoch) keeps member-5 as a static member that may come back; the rejoin
 * (epoch 0, the same instance id) replaces it (GroupMetadataManager, the static member that had left is copied under
 * the request's member id) and reconciles it to its target, swarm-2, by then released: member-5 is at epoch 5 and owns
 * swarm-2 on the coordinator's books. That answer goes to the closed connection. member-5's next heartbeat is at epoch
 * 5 and not a full one, and the coordinator sends an assignment only with a full heartbeat or when the member's
 * assignment changes (consumerGroupHeartbeat: it has not, since the stale rejoin), so member-5 never hears of swarm-2,
 * and nobody consumes it until the group's next rebalance.
 */
const scenario = loadScenarioFile(fileURLToPath(new URL("./fixtures/swarm-101973-stale-static-rejoin.json", import.meta.url)));

describe("swarm seed 101973: a static member's leave and rejoin retransmitted on a connection its client had closed", () => {
  it("replaces its membership with one whose assignment it never hears of: the partition is not consumed", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline", seed: 101973 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["converges"]);
    const events = result.log.toArray();
    const observed = (type: string, actor: string) => observationsIn(events, type, actor);

    // A heartbeat, the leave and the rejoin: sent on connection 8 during the cut, delivered after member-5 closed it.
    const stale = events.filter(
      (event): event is Extract<HistoryEvent, { ev: "send" }> =>
        event.ev === "send" && event.from === "member-5" && event.type === "ConsumerGroupHeartbeatRequest" && event.held === true,
    );
    expect(stale.map((event) => [event.t, event.at[0]])).toEqual([
      [82_328_643, 133_329_929],
      [92_011_990, 133_329_929],
      [103_304_000, 133_330_073],
    ]);
    const closed = events.find((event) => event.ev === "conn" && event.actor === "member-5" && event.what === "close");
    expect(closed?.t).toBe(112_328_643);

    // On the coordinator's books: the static member replaced, then at epoch 5 owning swarm-2.
    const removed = observed("gc.member-removed", "coordinator-0").filter(({ o }) => o.instanceId === "member-5");
    expect(removed.map(({ t, o }) => `${t} ${o.reason}`)).toEqual(["118339830 session-timeout", "133349929 static-replaced"]);
    const books = observed("gc.member", "coordinator-0").filter(({ o }) => o.instanceId === "member-5");
    expect(books.at(-1)).toMatchObject({ t: 133_349_929, o: { memberEpoch: 5, state: "STABLE", assigned: { swarm: [2] } } });

    // member-5 itself heartbeats at epoch 5 to the end and never owns anything.
    expect(observed("member.owned", "member-5").filter(({ t }) => t > 124_000_000)).toEqual([]);
    const states = observed("member.state", "member-5");
    expect(states.at(-1)).toMatchObject({ o: { to: "STABLE", memberEpoch: 5 } });
    // The checker tells it: the assignment was the answer to the stale rejoin, sent to the closed connection.
    expect(summary.checks.converges?.violations[0]?.message).toMatch(
      /never reached STABLE with all 3 partitions owned .*: swarm-2 assigned to member-5, whose client owns nothing; the coordinator made that assignment at 133\.350 s, answering a ConsumerGroupHeartbeat member-5 sent at 103\.304 s that arrived at 133\.330 s on a connection member-5 had closed at 112\.329 s \(closed by its client: a request timed out\), so its answer went to a closed connection$/,
    );
  }, 60_000);
});
