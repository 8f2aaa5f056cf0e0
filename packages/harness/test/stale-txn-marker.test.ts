import { fileURLToPath } from "node:url";
import type { Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { StaleTxnMarkers } from "../src/analysis/stale-txn-markers.js";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";

const obs = (t: number, actor: string, o: Record<string, unknown>): HistoryEvent => ({
  t,
  ev: "obs",
  actor,
  o: o as unknown as Observation,
});

const marker = (t: number, offset: number, committed = true, epoch = 1) =>
  obs(t, "broker-2", { type: "broker.txn-marker", topic: "out", partition: 2, producerId: 1000, producerEpoch: epoch, committed, offset });

const markersRequest = (t: number, arrives: number, conn: number): HistoryEvent => ({
  t,
  ev: "send",
  from: "txn-coordinator-1",
  to: "broker-2",
  type: "WriteTxnMarkersRequest",
  bytes: 62,
  fate: "deliver",
  at: [arrives],
  conn,
});

const txnState = (t: number, from: string, to: string) =>
  obs(t, "txn-coordinator-1", {
    type: "txn.state",
    transactionalId: "pipeline-member-1",
    producerId: 1000,
    producerEpoch: 1,
    from,
    to,
    partitions: {},
  });

/**
 * Seed 1384's story in miniature: transaction A's markers request to broker-2 (sent at 14 s) is held; the
 * coordinator gives it up at 19 s and its retry writes A's marker at 19.5 s (offset 107); transaction B writes
 * out-2@109..110 at 20.5 s; the held request arrives at 21 s and broker-2 writes a second COMMIT (offset 113),
 * which ends B there; the coordinator aborts B at 42 s.
 */
function history(options: { closed?: boolean; retried?: boolean; committed?: boolean } = {}): HistoryEvent[] {
  const { closed = true, retried = true, committed = true } = options;
  return [
    txnState(13_000_000, "CompleteCommit", "Ongoing"),
    txnState(14_000_000, "Ongoing", "PrepareCommit"),
    markersRequest(14_000_000, 21_000_000, 48),
    ...(closed
      ? [
          {
            t: 19_000_000,
            ev: "conn",
            actor: "txn-coordinator-1",
            peer: "broker-2",
            gen: 48,
            what: "close",
            connection: "txn-markers",
            reason: "closed by its client: a request timed out",
          } as HistoryEvent,
        ]
      : []),
    ...(retried ? [markersRequest(19_400_000, 19_500_000, 337), marker(19_500_000, 107)] : []),
    txnState(19_600_000, "PrepareCommit", "CompleteCommit"),
    txnState(20_000_000, "CompleteCommit", "Ongoing"),
    obs(20_500_000, "member-1", {
      type: "producer.ack",
      topic: "out",
      partition: 2,
      baseOffset: 109,
      lastOffset: 110,
      count: 2,
      acks: "all",
      errorCode: 0,
      latencyMs: 5,
      producerId: 1000,
      producerEpoch: 1,
      baseSequence: 18,
      transactionalId: "pipeline-member-1",
      leader: "broker-2",
    }),
    marker(21_000_000, 113, committed),
    txnState(42_000_000, "Ongoing", "PrepareAbort"),
  ];
}

describe("StaleTxnMarkers", () => {
  it("tells a record committed by a second marker of an earlier transaction, carried by a request its coordinator gave up", () => {
    const events = history();
    const story = new StaleTxnMarkers(events).storyOf("out-2", 109);
    expect(story?.text).toContain(
      "out-2@109 was made visible by a second COMMIT marker: broker-2 wrote it at 21.000 s (offset 113) for producer 1000, epoch 1, " +
        "from the WriteTxnMarkers request txn-coordinator-1 sent at 14.000 s and gave up at 19.000 s (closed by its client: a request timed out), " +
        "whose retry had written that transaction's marker on out-2 at 19.500 s (offset 107); it ended the transaction the producer had open " +
        "there then, which txn-coordinator-1 aborted at 42.000 s. Under transaction version 1",
    );
    // The stale marker, its request, the close, the retry's marker, the transaction's end.
    expect(story?.cited.map((i) => events[i]?.t)).toEqual([21_000_000, 14_000_000, 19_000_000, 19_500_000, 42_000_000]);
  });

  it("tells nothing of a request that rode a live connection, of a marker its transaction had not had, or of an abort", () => {
    expect(new StaleTxnMarkers(history({ closed: false })).storyOf("out-2", 109)).toBeNull();
    expect(new StaleTxnMarkers(history({ retried: false })).storyOf("out-2", 109)).toBeNull();
    expect(new StaleTxnMarkers(history({ committed: false })).storyOf("out-2", 109)).toBeNull();
    // A record outside the acknowledged batches, or past the marker.
    expect(new StaleTxnMarkers(history()).storyOf("out-2", 108)).toBeNull();
    expect(new StaleTxnMarkers(history()).storyOf("out-1", 109)).toBeNull();
  });
});

describe("chaos-eos as written, seed 1384 (a hunt of seeds 201..2000 found it)", () => {
  it("a late COMMIT marker of member-1's earlier transaction makes 4 results visible that its aborted transaction wrote: told", async () => {
    const file = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/chaos-eos.json", import.meta.url)));
    const { summary, result } = await runScenario({ ...file, seed: 1384 }, { host: "inline" });
    const check = summary.checks["exactly-once-output"];
    expect(check?.ok).toBe(false);
    const messages = (check?.violations ?? []).map((v) => v.message);
    expect(messages[0]).toMatch(
      /^pipeline: 4 of \d+ committed input records have more than one result in out \(rebalance x4\); 4 of them with a result a late COMMIT marker of an earlier transaction made visible \(out-2@109 was made visible by a second COMMIT marker: broker-2 wrote it at 21\.036 s \(offset 113\) for producer 1000, epoch 1, from the WriteTxnMarkers request txn-coordinator-1 sent at 14\.832 s and gave up at 19\.832 s \(closed by its client: a request timed out\), whose retry had written that transaction's marker on out-2 at 19\.948 s \(offset 107\); it ended the transaction the producer had open there then, which txn-coordinator-1 aborted at 42\.100 s\. /,
    );
    expect(messages.slice(1).map((m) => m.split(";")[0])).toEqual([
      "pipeline: in-6@58 has 2 results in out (out-2@109 by member-1, out-2@300 by member-3)",
      "pipeline: in-6@59 has 2 results in out (out-2@110 by member-1, out-2@301 by member-3)",
      "pipeline: in-6@60 has 2 results in out (out-2@111 by member-1, out-2@302 by member-3)",
      "pipeline: in-6@61 has 2 results in out (out-2@112 by member-1, out-2@303 by member-3)",
    ]);
    // The summary cites the story's events, which a hunt groups the finding by.
    const cited = (check?.violations[0]?.events ?? []).map((i) => result.events[i]);
    expect(
      cited.map((e) => (e?.ev === "obs" ? e.o.type : e?.ev === "send" ? e.type : `${e?.ev} ${e?.ev === "conn" ? e.what : ""}`)),
    ).toEqual(["broker.txn-marker", "WriteTxnMarkersRequest", "conn close", "broker.txn-marker", "txn.state"]);
    // Every other checker passes.
    for (const [name, verdict] of Object.entries(summary.checks)) if (name !== "exactly-once-output") expect(verdict.ok, name).toBe(true);
  });
});
