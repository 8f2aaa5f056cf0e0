import type { PartitionsByTopic } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../src/history/history-event.js";
import type { SimulationSpec } from "../src/kernel/simulation-spec.js";
import { extractReport, type ReportInputs } from "../src/report/report-extractor.js";
import { actor, noFaults, testSpec } from "./helpers.js";

const S = 1_000_000;

// A small history vocabulary: the observations the report reads, as members and the coordinator emit them.
const life = (t: number, who: string, what: string, detail: string | null = null): HistoryEvent => ({
  t,
  ev: "life",
  actor: who,
  what,
  detail,
});
const owned = (t: number, who: string, memberId: string, memberEpoch: number, partitions: PartitionsByTopic): HistoryEvent => ({
  t,
  ev: "obs",
  actor: who,
  o: { type: "member.owned", groupId: "g", memberId, memberEpoch, owned: partitions, cause: "assigned" },
});
const memberState = (t: number, who: string, memberId: string, from: string, to: string, memberEpoch: number): HistoryEvent => ({
  t,
  ev: "obs",
  actor: who,
  o: { type: "member.state", groupId: "g", memberId, protocol: "consumer", from, to, memberEpoch },
});
const gcMember = (t: number, memberId: string, memberEpoch: number, assigned: PartitionsByTopic): HistoryEvent => ({
  t,
  ev: "obs",
  actor: "coordinator-0",
  o: {
    type: "gc.member",
    groupId: "g",
    memberId,
    instanceId: null,
    memberEpoch,
    previousMemberEpoch: memberEpoch - 1,
    state: "STABLE",
    assigned,
    pendingRevocation: {},
  },
});
const removed = (t: number, memberId: string, reason: string, memberEpoch: number): HistoryEvent => ({
  t,
  ev: "obs",
  actor: "coordinator-0",
  o: { type: "gc.member-removed", groupId: "g", memberId, instanceId: null, memberEpoch, reason },
});
const gcGroup = (t: number, groupEpoch: number, assignmentEpoch: number, state: string, members: number): HistoryEvent => ({
  t,
  ev: "obs",
  actor: "coordinator-0",
  o: { type: "gc.group", groupId: "g", protocol: "consumer", groupEpoch, assignmentEpoch, state, members },
});
const send = (t: number, from: string, to: string, fate: "deliver" | "drop" | "partitioned", fault?: string): HistoryEvent => ({
  t,
  ev: "send",
  from,
  to,
  type: "ConsumerGroupHeartbeatRequest",
  bytes: 80,
  fate,
  at: fate === "deliver" ? [t + 1000] : [],
  ...(fault === undefined ? {} : { fault }),
});

const consumer = (id: string) =>
  actor(id, "consumer", { consumer: { "group.id": "g" }, subscription: ["T"], topics: [{ name: "T", partitions: 3 }] });

/** Two members of group g on topic T (3 partitions), 10 s long. */
function groupSpec(overrides: Partial<SimulationSpec> = {}): SimulationSpec {
  return testSpec({
    durationUs: 10 * S,
    actors: [actor("coordinator-0", "group-coordinator"), consumer("m1"), consumer("m2")],
    ...overrides,
  });
}

const inputs = (spec: SimulationSpec | null, summary: ReportInputs["summary"] = null): ReportInputs => ({
  header: { scenario: "test", seed: 7 },
  spec,
  summary,
});

const start = [life(0, "coordinator-0", "start"), life(0, "m1", "start"), life(0, "m2", "start")];

describe("report data: ownership intervals from member.owned", () => {
  it("draws one interval per tenure, ended by a revocation, a crash or the end of the run, with a row for every subscribed partition", () => {
    const data = extractReport(
      [
        ...start,
        memberState(0, "m1", "id1", "UNSUBSCRIBED", "JOINING", 0),
        owned(1 * S, "m1", "id1", 1, { T: [0, 1] }),
        owned(5 * S, "m1", "id1", 2, { T: [1] }),
        owned(6 * S, "m2", "id2", 3, { T: [0] }),
        life(7 * S, "m1", "crash", "nemesis"),
      ],
      inputs(groupSpec()),
    );
    expect(data.ownership.map((r) => `${r.topic}-${r.partition}`)).toEqual(["T-0", "T-1", "T-2"]);
    const [t0, t1, t2] = data.ownership;
    expect(t0?.intervals).toEqual([
      { actor: "m1", fromUs: 1 * S, toUs: 5 * S, live: true, firstEpoch: 1, lastEpoch: 1 },
      { actor: "m2", fromUs: 6 * S, toUs: 10 * S, live: true, firstEpoch: 3, lastEpoch: 3 },
    ]);
    // Confirmed again at epoch 2 (same tenure), then lost with the process.
    expect(t1?.intervals).toEqual([{ actor: "m1", fromUs: 1 * S, toUs: 7 * S, live: true, firstEpoch: 1, lastEpoch: 2 }]);
    expect(t2?.intervals).toEqual([]);
    expect(data.groups[0]?.unowned).toEqual([
      { tUs: 0, count: 3 },
      { tUs: 1 * S, count: 1 },
      { tUs: 5 * S, count: 2 },
      { tUs: 6 * S, count: 1 },
      { tUs: 7 * S, count: 2 },
    ]);
  });

  it("marks a fenced member's ownership as a zombie and shows two live owners as a conflict", () => {
    const data = extractReport(
      [
        ...start,
        memberState(0, "m1", "id1", "UNSUBSCRIBED", "JOINING", 0),
        memberState(0, "m2", "id2", "UNSUBSCRIBED", "JOINING", 0),
        owned(1 * S, "m1", "id1", 1, { T: [0, 1] }),
        // m1 is fenced at 3 s but its application goes on believing it owns T-0 and T-1 until 8 s.
        removed(3 * S, "id1", "session-timeout", 1),
        owned(4 * S, "m2", "id2", 2, { T: [0] }),
        owned(8 * S, "m1", "id1", 1, {}),
        // Then the coordinator admits id1 again and m1 takes T-2, which m2 still holds: two live owners.
        owned(8 * S, "m2", "id2", 3, { T: [0, 2] }),
        gcMember(8.5 * S, "id1", 4, { T: [2] }),
        owned(9 * S, "m1", "id1", 4, { T: [2] }),
      ],
      inputs(groupSpec()),
    );
    const [t0, , t2] = data.ownership;
    expect(t0?.intervals.map((i) => [i.actor, i.fromUs / S, i.toUs / S, i.live])).toEqual([
      ["m1", 1, 3, true],
      ["m1", 3, 8, false],
      ["m2", 4, 10, true],
    ]);
    expect(t0?.conflicts).toEqual([]);
    // The coordinator admitted id1 again at 8.5 s: from 9 s T-2 has two live owners.
    expect(t2?.intervals.map((i) => [i.actor, i.fromUs / S, i.toUs / S, i.live])).toEqual([
      ["m2", 8, 10, true],
      ["m1", 9, 10, true],
    ]);
    expect(t2?.conflicts).toEqual([{ fromUs: 9 * S, toUs: 10 * S }]);
  });

  it("without a spec, rows come from the partitions the history shows", () => {
    const data = extractReport([...start, owned(1 * S, "m1", "id1", 1, { T: [2] }), gcMember(1 * S, "id2", 2, { U: [0] })], inputs(null));
    expect(data.ownership.map((r) => `${r.topic}-${r.partition}`)).toEqual(["T-2", "U-0"]);
    expect(data.run.topologySource).toBe("history");
    expect(data.notes.join(" ")).toMatch(/no spec\.json/);
    // Without a spec or a summary the run ends with its last event.
    expect(data.run.durationUs).toBe(1 * S);
  });
});

describe("report data: member, group and process timelines", () => {
  it("keeps client states, the coordinator's view, group epochs and process bands as segments", () => {
    const data = extractReport(
      [
        ...start,
        memberState(0, "m1", "id1", "UNSUBSCRIBED", "JOINING", 0),
        gcGroup(0.1 * S, 1, 0, "ASSIGNING", 1),
        gcMember(0.1 * S, "id1", 1, { T: [0, 1, 2] }),
        memberState(0.1 * S, "m1", "id1", "JOINING", "RECONCILING", 1),
        memberState(0.1 * S, "m1", "id1", "RECONCILING", "STABLE", 1),
        gcGroup(0.2 * S, 1, 1, "STABLE", 1),
        life(2 * S, "m1", "pause"),
        life(3 * S, "m1", "resume", "2 held"),
        life(4 * S, "m1", "command", "pause-app"),
        life(5 * S, "m1", "crash", "nemesis"),
        life(6 * S, "m1", "restart"),
        life(7 * S, "coordinator-0", "crash", "nemesis"),
      ],
      inputs(groupSpec()),
    );
    const m1 = data.members.find((m) => m.actor === "m1");
    // The instant RECONCILING at 0.1 s lasts no time: it leaves no segment. The crash ends the client state.
    expect(m1?.states).toEqual([
      { fromUs: 0, toUs: 0.1 * S, state: "JOINING", memberEpoch: 0 },
      { fromUs: 0.1 * S, toUs: 5 * S, state: "STABLE", memberEpoch: 1 },
    ]);
    expect(m1?.serverStates).toEqual([
      { fromUs: 0.1 * S, toUs: 10 * S, state: "STABLE", memberEpoch: 1, memberId: "id1", assigned: 3, pendingRevocation: 0 },
    ]);
    expect(m1?.process.bands).toEqual([
      { kind: "paused", fromUs: 2 * S, toUs: 3 * S, detail: null },
      { kind: "app-paused", fromUs: 4 * S, toUs: 5 * S, detail: "pause-app" },
      { kind: "down", fromUs: 5 * S, toUs: 6 * S, detail: "nemesis" },
    ]);
    expect(m1?.process.marks.map((m) => m.what)).toEqual(["pause", "resume", "command", "crash", "restart"]);
    expect(data.members.map((m) => m.actor)).toEqual(["m1", "m2"]);
    expect(data.processes).toEqual([
      {
        actor: "coordinator-0",
        bands: [{ kind: "down", fromUs: 7 * S, toUs: 10 * S, detail: "nemesis" }],
        marks: [{ tUs: 7 * S, what: "crash", detail: "nemesis" }],
      },
    ]);
    expect(data.groups[0]?.segments).toEqual([
      { fromUs: 0.1 * S, toUs: 0.2 * S, state: "ASSIGNING", groupEpoch: 1, assignmentEpoch: 0, members: 1 },
      { fromUs: 0.2 * S, toUs: 10 * S, state: "STABLE", groupEpoch: 1, assignmentEpoch: 1, members: 1 },
    ]);
  });

  it("lists removals and poll timeouts with the member actor that held the id", () => {
    const pollTimeout: HistoryEvent = {
      t: 6 * S,
      ev: "obs",
      actor: "m2",
      o: { type: "member.poll-timeout", groupId: "g", memberId: "id2", lastPollUs: 1 * S, maxPollIntervalMs: 5000 },
    };
    const data = extractReport(
      [
        ...start,
        memberState(0, "m1", "id1", "UNSUBSCRIBED", "JOINING", 0),
        removed(3 * S, "id1", "session-timeout", 4),
        pollTimeout,
        removed(6.1 * S, "id2", "leave", 5),
        removed(7 * S, "stranger", "rebalance-timeout", 6),
      ],
      inputs(groupSpec()),
    );
    expect(data.timers.map((t) => [t.tUs / S, t.kind, t.actor, t.timeout, t.sinceUs])).toEqual([
      [3, "session-timeout", "m1", true, null],
      [6, "poll-timeout", "m2", true, 1 * S],
      [6.1, "leave", "m2", false, null],
      [7, "rebalance-timeout", null, true, null],
    ]);
  });
});

describe("report data: fault bands", () => {
  const plan = {
    ...noFaults,
    messageFaults: [
      { name: "loss", types: ["ConsumerGroupHeartbeat*"], startMs: 1000, endMs: 3000, drop: { probability: 0.5 } },
      { name: "jitter", delay: { dist: "exponential" as const, meanMs: 20 } },
    ],
    partitions: [{ name: "split", a: ["m1"], b: ["coordinator-0"], direction: "two-way" as const, startMs: 4000, endMs: 6000 }],
  };
  const sends = [
    send(1.5 * S, "m1", "coordinator-0", "drop", "loss"),
    send(2 * S, "m1", "coordinator-0", "deliver", "jitter"),
    send(2.5 * S, "m2", "coordinator-0", "drop", "loss"),
    send(4.5 * S, "m1", "coordinator-0", "partitioned", "split"),
    send(5.5 * S, "coordinator-0", "m1", "partitioned", "split"),
    send(5.6 * S, "m2", "coordinator-0", "deliver"),
  ];

  it("takes the declared windows from the spec and counts what each fault did to the messages", () => {
    const data = extractReport([...start, ...sends], inputs(groupSpec({ plan })));
    expect(data.faults).toEqual([
      {
        name: "loss",
        kind: "message",
        declared: true,
        fromUs: 1 * S,
        toUs: 3 * S,
        detail: "drop 50% · types ConsumerGroupHeartbeat*",
        affected: { drop: 2 },
      },
      {
        name: "jitter",
        kind: "message",
        declared: true,
        fromUs: 0,
        toUs: 10 * S,
        detail: "delay exponential(mean 20 ms)",
        affected: { deliver: 1 },
      },
      {
        name: "split",
        kind: "partition",
        declared: true,
        fromUs: 4 * S,
        toUs: 6 * S,
        detail: "m1 <-> coordinator-0 blocked",
        affected: { partitioned: 2 },
      },
    ]);
  });

  it("without a spec, infers each window from the first and last message the fault touched", () => {
    const data = extractReport([...start, ...sends], inputs(null));
    expect(data.faults.map((f) => [f.name, f.kind, f.declared, f.fromUs / S, f.toUs / S])).toEqual([
      ["loss", "message", false, 1.5, 2.5],
      ["jitter", "message", false, 2, 2.000001],
      ["split", "partition", false, 4.5, 5.5],
    ]);
  });
});

describe("report data: violations", () => {
  it("numbers violations across checks and fetches the history events they name", () => {
    const events = [...start, owned(1 * S, "m1", "id1", 1, { T: [0] }), send(2 * S, "m2", "coordinator-0", "deliver")];
    const summary = {
      host: "inline",
      historyHash: "ab",
      replay: "pnpm kcsim run x.json --seed 7",
      checks: {
        "actor-exceptions": { ok: true, violations: [] },
        "single-owner": {
          ok: false,
          violations: [
            { t: 1 * S, message: "T-0 has two owners", events: [3, 4] },
            { t: 2 * S, message: "again", events: [99] },
          ],
        },
        converges: { ok: false, violations: [{ t: 3 * S, message: "never stable", events: [] }] },
      },
      metrics: { virtualMs: 10_000 },
    };
    const data = extractReport(events, inputs(groupSpec(), summary));
    expect(data.run).toMatchObject({ host: "inline", historyHash: "ab", replay: "pnpm kcsim run x.json --seed 7", historyEvents: 5 });
    expect(data.checks?.map((c) => [c.name, c.ok, c.violations.map((v) => v.number)])).toEqual([
      ["actor-exceptions", true, []],
      ["single-owner", false, [1, 2]],
      ["converges", false, [3]],
    ]);
    expect(data.checks?.[0]?.description).toBe("no actor threw an exception");
    const first = data.checks?.[1]?.violations[0];
    expect(first?.events.map((e) => [e.index, e.line, e.tUs, e.actor])).toEqual([
      [3, 5, 1 * S, "m1"],
      [4, 6, 2 * S, "m2"],
    ]);
    expect(JSON.parse(first?.events[0]?.text ?? "")).toEqual(events[3]);
    expect(data.checks?.[1]?.violations[1]?.events).toEqual([
      { index: 99, line: 101, tUs: null, actor: null, text: "(no such event in the history)" },
    ]);
  });
});

describe("report data: the causal chain behind a violation", () => {
  /** The chains' start: m1 owns T-0 in a STABLE group, and m2 starts joining at 1 s. */
  const m2JoinsWhileM1OwnsT0 = (): HistoryEvent[] => [
    ...start,
    memberState(0, "m1", "id1", "UNSUBSCRIBED", "STABLE", 1),
    owned(0, "m1", "id1", 1, { T: [0] }),
    gcGroup(0, 1, 1, "STABLE", 1),
    memberState(1 * S, "m2", "id2", "UNSUBSCRIBED", "JOINING", 0),
  ];

  it("spans from where the named members' trouble began, with their events, their coordinator's and the messages between them", () => {
    const events = [
      ...m2JoinsWhileM1OwnsT0(),
      send(1 * S, "m2", "coordinator-0", "deliver"),
      gcGroup(1 * S + 1000, 2, 2, "RECONCILING", 2),
      gcMember(1 * S + 1000, "id2", 2, { T: [0] }),
      send(1 * S + 1000, "coordinator-0", "m2", "drop", "loss"),
      send(2 * S, "m1", "coordinator-0", "deliver"), // m1's own heartbeat: m1 is named, so it belongs
      memberState(3 * S, "m2", "id2", "JOINING", "RECONCILING", 2),
      owned(4 * S, "m2", "id2", 2, { T: [0] }),
      memberState(4 * S, "m2", "id2", "RECONCILING", "STABLE", 2),
      gcMember(9 * S, "id1", 3, {}), // after the window
    ];
    const summary = {
      checks: { "single-owner": { ok: false, violations: [{ t: 4 * S, message: "T-0 owned by m1 and m2 at once", events: [14] }] } },
    };
    const data = extractReport(events, inputs(groupSpec(), summary));
    expect(data.explanations).toHaveLength(1);
    const x = data.explanations[0];
    expect(x).toMatchObject({
      number: 1,
      check: "single-owner",
      members: ["m1", "m2"],
      partitions: ["T-0"],
      actors: ["m1", "m2", "coordinator-0"],
    });
    // m2's trouble began when it started joining at 1 s; the window adds a margin each side.
    expect(x?.fromUs).toBe(1 * S - 200_000);
    expect(x?.toUs).toBe(4 * S + 200_000);
    const rows = (x?.events ?? []).map((e) => `${e.tUs / S} ${e.actor} ${e.label}`);
    expect(rows).toEqual([
      "1 m2 member.state",
      "1 m2 ConsumerGroupHeartbeatRequest m2 → coordinator-0: delivered",
      "1.001 coordinator-0 gc.group",
      "1.001 coordinator-0 gc.member",
      "1.001 coordinator-0 ConsumerGroupHeartbeatRequest coordinator-0 → m2: dropped by loss",
      "2 m1 ConsumerGroupHeartbeatRequest m1 → coordinator-0: delivered",
      "3 m2 member.state",
      "4 m2 member.owned",
      "4 m2 member.state",
    ]);
    expect(x?.events.find((e) => e.fate === "drop")).toMatchObject({ to: "m2", arrivals: [] });
    // No spec re-run was asked for: the panel says why it has no payloads.
    expect(x?.events.every((e) => e.payload === null)).toBe(true);
    expect(x?.enrichment).toMatch(/^no re-run/);
    // A spec whose actor kinds this process cannot build: the chain stands, and says why it has no payloads.
    const blind = extractReport(events, { ...inputs(groupSpec(), { ...summary, host: "inline" }), rerunWith: new Map() });
    expect(blind.explanations[0]?.events).toHaveLength(9);
    expect(blind.explanations[0]?.enrichment).toMatch(/^no re-run: unknown actor kind 'group-coordinator'/);
  });

  it("keeps a member's commit in the chain when it holds a partition the violation names, and leaves other commits out", () => {
    const commit = (t: number, memberId: string, partitions: number[]): HistoryEvent => ({
      t,
      ev: "obs",
      actor: "coordinator-0",
      o: {
        type: "gc.offset-commit",
        groupId: "g",
        memberId,
        epoch: 2,
        transactional: false,
        topics: [{ topic: "T", partitions, offsets: partitions.map(() => 5), errorCodes: partitions.map(() => 0) }],
      },
    });
    const events = [
      ...m2JoinsWhileM1OwnsT0(),
      commit(2 * S, "id2", [1, 0]), // one of its partitions is T-0: part of the chain
      commit(2 * S + 1000, "id2", [1]), // T-1 only: noise here
      owned(4 * S, "m2", "id2", 2, { T: [0] }),
    ];
    const summary = {
      checks: { "single-owner": { ok: false, violations: [{ t: 4 * S, message: "T-0 owned by m1 and m2 at once", events: [9] }] } },
    };
    const data = extractReport(events, inputs(groupSpec(), summary));
    const rows = (data.explanations[0]?.events ?? []).map((e) => `${e.tUs / S} ${e.actor} ${e.label}`);
    expect(rows).toEqual(["1 m2 member.state", "2 coordinator-0 gc.offset-commit", "4 m2 member.owned"]);
  });

  it("counts each group's records per second and its lag against the synthetic log end", () => {
    const records = (t: number, who: string, partition: number, first: number, last: number): HistoryEvent => ({
      t,
      ev: "obs",
      actor: who,
      o: {
        type: "member.records",
        memberId: `id-${who}`,
        ranges: [{ topic: "T", partition, firstOffset: first, lastOffset: last, count: last - first + 1 }],
      },
    });
    const spec = groupSpec();
    const data = extractReport(
      [
        ...start,
        memberState(0, "m1", "id-m1", "UNSUBSCRIBED", "STABLE", 1),
        records(500_000, "m1", 0, 0, 4),
        records(1_500_000, "m1", 1, 0, 9),
      ],
      inputs(spec),
    );
    const progress = data.progress[0];
    expect(progress?.groupId).toBe("g");
    expect(progress?.logEnd).toBe("synthetic");
    // One-second buckets (the least); at 1 s the three partitions hold 11 records each (10/s from offset 0 at 0 s).
    expect(progress?.samples[0]).toEqual({ tUs: 1 * S, recordsPerSecond: 5, lag: 3 * 11 - 5 });
    expect(progress?.samples[1]).toEqual({ tUs: 2 * S, recordsPerSecond: 10, lag: 3 * 21 - 5 - 10 });
  });
});
