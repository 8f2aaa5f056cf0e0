import type { PartitionsByTopic } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { ConnectionRecord, HistoryEvent, SendRecord } from "../src/history/history-event.js";
import type { SimulationSpec } from "../src/kernel/simulation-spec.js";
import { MAX_CHAIN_EVENTS } from "../src/report/causal-chain.js";
import { connectionMarkTip } from "../src/report/connection-marks.js";
import type { ReportData } from "../src/report/report-data.js";
import { extractReport, type ReportInputs } from "../src/report/report-extractor.js";
import { renderReportHtml } from "../src/report/report-html.js";
import { historyLineProblem } from "../src/report/run-directory.js";
import { actor, noFaults, testSpec } from "./helpers.js";

const S = 1_000_000;

// The history lines of connection mode, as the kernel and the router write them.
const conn = (
  t: number,
  client: string,
  peer: string,
  gen: number,
  what: string,
  connection = "",
  reason: string | null = null,
  at?: readonly [number, number],
): ConnectionRecord => ({
  t,
  ev: "conn",
  actor: client,
  peer,
  gen,
  what,
  connection,
  reason,
  ...(at === undefined ? {} : { at }),
});
const send = (
  t: number,
  from: string,
  to: string,
  fate: SendRecord["fate"],
  connId: number,
  extra: Partial<SendRecord> = {},
): SendRecord => ({
  t,
  ev: "send",
  from,
  to,
  type: "ConsumerGroupHeartbeatRequest",
  bytes: 80,
  fate,
  at: fate === "deliver" ? [t + 1000] : [],
  conn: connId,
  ...extra,
});
const life = (t: number, who: string, what: string, detail: string | null = null): HistoryEvent => ({
  t,
  ev: "life",
  actor: who,
  what,
  detail,
});
const memberState = (t: number, who: string, memberId: string, from: string, to: string, memberEpoch: number): HistoryEvent => ({
  t,
  ev: "obs",
  actor: who,
  o: { type: "member.state", groupId: "g", memberId, protocol: "consumer", from, to, memberEpoch },
});
const owned = (t: number, who: string, memberId: string, memberEpoch: number, partitions: PartitionsByTopic): HistoryEvent => ({
  t,
  ev: "obs",
  actor: who,
  o: { type: "member.owned", groupId: "g", memberId, memberEpoch, owned: partitions, cause: "assigned" },
});

const consumer = (id: string) =>
  actor(id, "consumer", { consumer: { "group.id": "g" }, subscription: ["T"], topics: [{ name: "T", partitions: 2 }] });

/** Two members of group g, a coordinator, a broker and a producer, 10 s long. */
function spec(overrides: Partial<SimulationSpec> = {}): SimulationSpec {
  return testSpec({
    durationUs: 10 * S,
    actors: [
      actor("coordinator-0", "group-coordinator"),
      actor("broker-0", "broker"),
      consumer("m1"),
      consumer("m2"),
      actor("producer-1", "producer"),
    ],
    plan: {
      ...noFaults,
      messageFaults: [{ name: "hb-break", from: ["m1"], types: ["ConsumerGroupHeartbeatRequest"], drop: { probability: 1 } }],
    },
    ...overrides,
  });
}

const inputs = (s: SimulationSpec | null, summary: ReportInputs["summary"] = null): ReportInputs => ({
  header: { scenario: "test", seed: 7 },
  spec: s,
  summary,
});

const start = ["coordinator-0", "broker-0", "m1", "m2", "producer-1"].map((who) => life(0, who, "start"));

/**
 * m1's coordinator connection breaks at 2 s under hb-break (one heartbeat lost with it, and the response to another),
 * m1 notices at 2.4 s and is connected again at 2.6 s; m1's connection to broker-0 is reset when the broker crashes
 * at 5 s and comes back at 6 s after a connect timeout. The producer closes its connection after a request timeout at
 * 7 s and never reconnects. m2's connections are fine.
 */
const history: HistoryEvent[] = [
  ...start,
  conn(0, "m1", "coordinator-0", 2, "connect", "coordinator"),
  conn(1000, "m1", "coordinator-0", 2, "ready", "coordinator"),
  conn(0, "m2", "coordinator-0", 2, "connect", "coordinator"),
  conn(1000, "m2", "coordinator-0", 2, "ready", "coordinator"),
  conn(0, "m1", "broker-0", 3, "connect"),
  conn(1000, "m1", "broker-0", 3, "ready"),
  conn(0, "producer-1", "broker-0", 2, "connect"),
  conn(1000, "producer-1", "broker-0", 2, "ready"),
  send(1 * S, "m1", "coordinator-0", "deliver", 2),
  send(1.9 * S, "coordinator-0", "m1", "deliver", -2),
  // The router breaks the connection: the send that broke it, then the break (it does not know the connection's name).
  send(2 * S, "m1", "coordinator-0", "broken", 2, { fault: "hb-break" }),
  conn(2 * S, "m1", "coordinator-0", 2, "break", "", "hb-break", [2.4 * S, 2.5 * S]),
  send(2.1 * S, "coordinator-0", "m1", "broken", -2),
  // m1 notices: its reset reports the break (no second mark).
  conn(2.4 * S, "m1", "coordinator-0", 2, "reset", "coordinator", "broken"),
  conn(2.5 * S, "m1", "coordinator-0", 9, "connect", "coordinator"),
  conn(2.6 * S, "m1", "coordinator-0", 9, "ready", "coordinator"),
  life(5 * S, "broker-0", "crash", "nemesis"),
  conn(5 * S + 500, "m1", "broker-0", 3, "reset", "", "crashed"),
  conn(5.1 * S, "m1", "broker-0", 12, "connect"),
  conn(5.4 * S, "m1", "broker-0", 12, "connect-timeout", "", "not accepted within socket.connection.setup.timeout.ms"),
  life(5.9 * S, "broker-0", "restart"),
  conn(5.95 * S, "m1", "broker-0", 13, "connect"),
  conn(6 * S, "m1", "broker-0", 13, "ready"),
  conn(7 * S, "producer-1", "broker-0", 2, "close", "", "closed by its client: a request timed out"),
];

const marksOf = (data: ReportData, who: string) => data.connections.find((c) => c.actor === who)?.marks ?? [];

describe("report data: connection trouble from the history's conn lines", () => {
  it("marks breaks, resets and timeouts on their client's row, with the connection's name and when it was ready again", () => {
    const data = extractReport(history, inputs(spec()));
    expect(data.connections.map((c) => c.actor)).toEqual(["m1", "producer-1"]);
    expect(marksOf(data, "m1")).toEqual([
      {
        tUs: 2 * S,
        what: "break",
        peer: "coordinator-0",
        connection: "coordinator",
        gen: 2,
        reason: "hb-break",
        noticedUs: [2.4 * S, 2.5 * S],
        lost: 2,
        readyAgainUs: 2.6 * S,
      },
      {
        tUs: 5 * S + 500,
        what: "reset",
        peer: "broker-0",
        connection: "",
        gen: 3,
        reason: "crashed",
        noticedUs: null,
        lost: 0,
        readyAgainUs: 6 * S,
      },
      {
        tUs: 5.4 * S,
        what: "connect-timeout",
        peer: "broker-0",
        connection: "",
        gen: 12,
        reason: "not accepted within socket.connection.setup.timeout.ms",
        noticedUs: null,
        lost: 0,
        readyAgainUs: 6 * S,
      },
    ]);
    // Outages: from the trouble to the next connection to the same server that was ready; a failed attempt inside one
    // is counted in it. The producer's connection was never opened again: its outage runs to the end, unmended.
    expect(data.connections.find((c) => c.actor === "m1")?.outages).toEqual([
      {
        fromUs: 2 * S,
        toUs: 2.6 * S,
        peer: "coordinator-0",
        connection: "coordinator",
        cause: "break",
        reason: "hb-break",
        failedAttempts: 0,
        reconnected: true,
      },
      {
        fromUs: 5 * S + 500,
        toUs: 6 * S,
        peer: "broker-0",
        connection: "",
        cause: "reset",
        reason: "crashed",
        failedAttempts: 1,
        reconnected: true,
      },
    ]);
    expect(data.connections.find((c) => c.actor === "producer-1")?.outages).toEqual([
      expect.objectContaining({ fromUs: 7 * S, toUs: 10 * S, cause: "close", reconnected: false }),
    ]);
    // The producer has no process fault, yet its connection trouble gives it a row in the fault lane.
    expect(data.processes.map((p) => p.actor)).toEqual(["broker-0", "producer-1"]);
  });

  it("says in each mark's tooltip which connection, why, when each end noticed and when it was ready again", () => {
    const data = extractReport(history, inputs(spec()));
    const [broke, reset, setup] = marksOf(data, "m1");
    expect(connectionMarkTip("m1", broke as NonNullable<typeof broke>)).toBe(
      '2.000 s · m1 → coordinator-0 "coordinator" (generation 2) · broken by hb-break · m1 noticed at 2.400 s, coordinator-0 at 2.500 s · 2 messages lost with it · ready again at 2.600 s (down 600 ms)',
    );
    expect(connectionMarkTip("m1", reset as NonNullable<typeof reset>)).toBe(
      "5.000 s · m1 → broker-0 (generation 3) · reset: crashed · ready again at 6.000 s (down 999.5 ms)",
    );
    expect(connectionMarkTip("m1", setup as NonNullable<typeof setup>)).toBe(
      "5.400 s · m1 → broker-0 (generation 12) · connect timed out: not accepted within socket.connection.setup.timeout.ms · ready again at 6.000 s (down 600 ms)",
    );
    const [closed] = marksOf(data, "producer-1");
    expect(connectionMarkTip("producer-1", closed as NonNullable<typeof closed>)).toBe(
      "7.000 s · producer-1 → broker-0 (generation 2) · closed by producer-1: closed by its client: a request timed out · not ready again before the run ended or the client went down",
    );
  });

  it("draws the marks and outages on the member's row and the producer's fault-lane row, with a legend", () => {
    const html = renderReportHtml(extractReport(history, inputs(spec())));
    const rowOf = (attribute: string) => {
      const marks = html.slice(html.indexOf('<g class="marks">'));
      const from = marks.indexOf(attribute);
      return from < 0 ? "" : marks.slice(from, marks.indexOf("</g></g>", from) + 4);
    };
    const m1 = rowOf('data-member="m1"');
    expect(m1).toContain('class="pt conn conn-break"');
    expect(m1).toContain("<title>2.000 s · m1 → coordinator-0 &quot;coordinator&quot; (generation 2) · broken by hb-break");
    expect(m1).toContain('class="pt conn conn-reset"');
    expect(m1).toContain('class="pt conn conn-connect-timeout"');
    expect(rowOf('data-member="m2"')).not.toContain("conn-");
    expect(rowOf('data-process="producer-1"')).toContain('class="pt conn conn-close"');
    expect(html).toMatch(
      /<rect [^>]*class="conn-down[^"]*"[^>]*><title>m1 → coordinator-0 &quot;coordinator&quot; down after break \(hb-break\) · 2\.000-2\.600 s/,
    );
    expect(html).toMatch(/class="conn-down open[^"]*"[^>]*><title>producer-1 → broker-0 down after close/);
    expect(html).toContain("<b>Connections</b>");
    for (const words of ["connection broken by a fault", "connection reset", "closed: request timed out", "connect timed out"])
      expect(html).toContain(words);
  });

  it("counts connections per kind of client for the metrics section", () => {
    const data = extractReport(history, inputs(spec()));
    expect(data.connectionStats).toEqual([
      {
        kind: "consumer",
        actors: 2,
        opened: 6,
        broken: 1,
        reset: 1,
        requestTimeouts: 0,
        connectTimeouts: 1,
        messagesLost: 2,
        longestOutageUs: 1 * S - 500,
      },
      {
        kind: "producer",
        actors: 1,
        opened: 1,
        broken: 0,
        reset: 0,
        requestTimeouts: 1,
        connectTimeouts: 0,
        messagesLost: 0,
        longestOutageUs: null,
      },
    ]);
    const html = renderReportHtml(extractReport(history, inputs(spec(), { metrics: { virtualMs: 10_000, connects: 7, breaks: 1 } })));
    const metrics = html.slice(html.indexOf('<section id="metrics">'));
    expect(metrics).toContain("<h3>connections, by kind of client</h3>");
    expect(metrics).toMatch(/<td class="">consumer<\/td><td class="num">2<\/td><td class="num">6<\/td><td class="num">1<\/td>/);
    // Without a spec, kinds come from the actors' names.
    expect(extractReport(history, inputs(null)).connectionStats.map((c) => [c.kind, c.actors])).toEqual([
      ["m", 2],
      ["producer", 1],
    ]);
    // A run without connection lines (datagram mode) has no table.
    const datagram = renderReportHtml(extractReport(start, inputs(spec(), { metrics: { virtualMs: 10_000 } })));
    expect(datagram).not.toContain("connections, by kind of client");
    expect(datagram).not.toContain("<b>Connections</b>");
  });

  it("reads a run directory's conn lines only when they have what it draws", () => {
    expect(historyLineProblem(conn(2 * S, "m1", "coordinator-0", 2, "break", "", "hb-break", [2.4 * S, 2.5 * S]))).toBeNull();
    expect(historyLineProblem(conn(0, "m1", "coordinator-0", 2, "connect", "coordinator"))).toBeNull();
    expect(historyLineProblem({ t: 0, ev: "conn", actor: "m1", peer: "c", what: "connect" })).toBe(
      "a connection event needs actor, peer, what and an integer gen",
    );
    expect(historyLineProblem({ ...conn(0, "m1", "c", 2, "break"), at: null })).toBe(
      "a connection event's at must be [when the client noticed, when the server noticed]",
    );
    expect(historyLineProblem({ ...conn(0, "m1", "c", 2, "break"), at: [1] })).not.toBeNull();
  });

  it("counts a held message and a broken one apart in the fault lane", () => {
    const partitioned = spec({
      plan: {
        ...noFaults,
        messageFaults: [{ name: "hb-break", drop: { probability: 1 } }],
        partitions: [{ name: "split", a: ["m2"], b: ["coordinator-0"], direction: "two-way", startMs: 3000, endMs: 4000 }],
      },
    });
    const data = extractReport(
      [...history, send(3.5 * S, "m2", "coordinator-0", "deliver", 2, { fault: "split", held: true, at: [4.1 * S] })],
      inputs(partitioned),
    );
    expect(data.faults.map((f) => [f.name, f.affected])).toEqual([
      ["hb-break", { broken: 1 }],
      ["split", { held: 1 }],
    ]);
    const html = renderReportHtml(data);
    expect(html).toContain("1 lost with a connection it broke");
    expect(html).toContain("1 held back");
  });
});

describe("report data: connection trouble in a violation's causal chain", () => {
  /**
   * m1 is STABLE until 3 s, when the coordinator fences it (its heartbeats went nowhere): its trouble begins there,
   * but its connection broke at 1 s and was down until 3.5 s. Then m1 and m2 both own T-0 at 8 s.
   */
  const events: HistoryEvent[] = [
    ...start,
    memberState(0, "m1", "id1", "UNSUBSCRIBED", "STABLE", 1),
    memberState(0, "m2", "id2", "UNSUBSCRIBED", "STABLE", 1),
    conn(0, "m1", "coordinator-0", 2, "connect", "coordinator"),
    conn(1000, "m1", "coordinator-0", 2, "ready", "coordinator"),
    send(1 * S, "m1", "coordinator-0", "broken", 2, { fault: "hb-break" }),
    conn(1 * S, "m1", "coordinator-0", 2, "break", "", "hb-break", [2.9 * S, 1.2 * S]),
    conn(2.9 * S, "m1", "coordinator-0", 2, "reset", "coordinator", "broken"),
    memberState(3 * S, "m1", "id1", "STABLE", "FENCED", 1),
    conn(3.4 * S, "m1", "coordinator-0", 7, "connect", "coordinator"),
    conn(3.5 * S, "m1", "coordinator-0", 7, "ready", "coordinator"),
    memberState(3.6 * S, "m1", "id1", "FENCED", "JOINING", 0),
    memberState(4 * S, "m1", "id1", "JOINING", "RECONCILING", 2),
    owned(8 * S, "m1", "id1", 2, { T: [0] }),
  ];
  const violationAt = (index: number) => ({
    checks: { "single-owner": { ok: false, violations: [{ t: 8 * S, message: "T-0 owned by m1 and m2 at once", events: [index] }] } },
  });

  it("reaches back to the break that began the trouble and shows it named, with when each end noticed", () => {
    const data = extractReport(events, inputs(spec(), violationAt(events.length - 1)));
    const x = data.explanations[0];
    // The trouble began at 3 s (FENCED), but the connection that was down then broke at 1 s: the window starts there.
    expect(x?.fromUs).toBeLessThanOrEqual(1 * S);
    const rows = (x?.events ?? []).filter((e) => e.kind === "conn").map((e) => `${e.tUs / S} ${e.label}`);
    expect(rows).toEqual([
      '1 connection "coordinator" m1 → coordinator-0 broken by hb-break (m1 noticed at 2.900 s, coordinator-0 at 1.200 s)',
      '2.9 connection "coordinator" m1 → coordinator-0: reset (broken)',
      '3.4 connection "coordinator" m1 → coordinator-0: connect',
      '3.5 connection "coordinator" m1 → coordinator-0: ready',
    ]);
    expect(x?.events.find((e) => e.kind === "conn")?.connection).toEqual({
      what: "break",
      peer: "coordinator-0",
      noticedUs: [2.9 * S, 1.2 * S],
    });
    // The panel draws it on m1's lane, with how long each end went on unaware, and lists it.
    const html = renderReportHtml(data);
    const panel = html.slice(html.indexOf('<aside id="xpanel"'));
    expect(panel).toMatch(
      /<g class="xconn xc-break" data-row="\d+"><title>1\.000 s connection &quot;coordinator&quot; m1 → coordinator-0 broken by hb-break/,
    );
    expect(panel).toContain('class="xunnoticed"');
    expect(panel).toMatch(/<tr class="xrow xk-conn"[^>]*><td class="num">1\.000000 s<\/td><td>m1<\/td>/);
  });

  it("keeps the break however many events come after it", () => {
    const noise: HistoryEvent[] = [];
    for (let i = 0; i < MAX_CHAIN_EVENTS + 50; i++) noise.push(memberState(4 * S + i * 1000, "m1", "id1", "RECONCILING", "RECONCILING", 2));
    const busy = [...events.slice(0, -1), ...noise, owned(8 * S, "m1", "id1", 2, { T: [0] })];
    const x = extractReport(busy, inputs(spec(), violationAt(busy.length - 1))).explanations[0];
    expect(x?.events).toHaveLength(MAX_CHAIN_EVENTS);
    expect(x?.earlierEventsLeftOut).toBeGreaterThan(0);
    expect(x?.events.filter((e) => e.kind === "conn").map((e) => e.connection?.what)).toEqual(["break", "reset"]);
  });
});
