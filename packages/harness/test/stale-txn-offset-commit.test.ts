import { fileURLToPath } from "node:url";
import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import type { ScenarioFile } from "../src/scenario/scenario-schema.js";

/**
 * chaos-eos with the faults `kcsim hunt` drew from seeds 316, 15 and 59 (each its failure's or its plan's
 * scenario.json, kept as fixtures). In each, a member's TxnOffsetCommit is held by a network partition,
 * request.timeout.ms passes, the client closes the connection and goes on with its transactions on a new one, and
 * the kernel's retransmission of the closed socket's bytes delivers the old request seconds later (the
 * OffsetCommit of "What kcsim found", in its transactional form). What the group coordinator does with it
 * depends on where the producer is when it comes, and on KIP-890's verification
 * (transaction.partition.verification.enable, on by default since Kafka 3.6).
 */
const fixture = (name: string) => loadScenarioFile(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)));

interface TxnOffset {
  readonly type: "gc.txn-offset";
  readonly producerId: number;
  readonly transactionalId: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly outcome: string;
}

/** The pending transactional offset the backward commit came from, the request that carried it, and what its producer did before. */
function staleOffset(events: readonly HistoryEvent[], violationAt: number, message: string) {
  const [, topic, partition, offset] = /: (.+)-(\d+) committed (\d+) after/.exec(message) ?? [];
  const txnOffsets = events.flatMap((event) =>
    event.ev === "obs" && event.o.type === "gc.txn-offset" ? [{ t: event.t, actor: event.actor, o: event.o as unknown as TxnOffset }] : [],
  );
  const stale = txnOffsets
    .filter(({ t, o }) => t <= violationAt && o.topic === topic && o.partition === Number(partition) && o.offset === Number(offset))
    .at(-1);
  if (stale === undefined) throw new Error(`no pending transactional offset for ${message}`);
  const member = stale.o.transactionalId.replace(/^pipeline-/, "");
  // The coordinator answered the request when it took the offset: the answer names the connection the request
  // came on, and the request is the last one on it to arrive by then.
  const answer = events.find(
    (event) => event.ev === "send" && event.t === stale.t && event.type === "TxnOffsetCommitResponse" && event.to === member,
  );
  const connection = answer?.ev === "send" && answer.conn !== undefined ? -answer.conn : Number.NaN;
  const carrier = events
    .filter(
      (event): event is Extract<HistoryEvent, { ev: "send" }> =>
        event.ev === "send" &&
        event.type === "TxnOffsetCommitRequest" &&
        event.from === member &&
        event.conn === connection &&
        event.at.some((at) => at <= stale.t),
    )
    .at(-1);
  if (carrier === undefined) throw new Error(`no TxnOffsetCommit from ${member} before ${stale.t}`);
  const closed = events.find(
    (event) => event.ev === "conn" && event.actor === member && event.gen === carrier.conn && event.what === "close",
  );
  const lastMarker = events.filter(
    (event) =>
      event.ev === "obs" &&
      event.t < stale.t &&
      event.o.type === "gc.txn-marker" &&
      (event.o as unknown as { producerId: number }).producerId === stale.o.producerId,
  );
  const markerAt = lastMarker.at(-1)?.t ?? 0;
  // What the producer's transaction of the moment had written to the offsets log before the stale request came.
  const ongoing = txnOffsets.filter(
    ({ t, o }) => o.producerId === stale.o.producerId && o.outcome === "pending" && t > markerAt && t < stale.t,
  );
  return { stale, carrier, closed, ongoing };
}

/** Seed 316's stale request: sent during the cut, its connection closed by member-3 on request.timeout.ms, delivered after. */
const CARRIER_316 = { sent: 29_775_663, closed: 34_775_663, delivered: 35_976_457 };

/** The gc.txn-offset observations of the run. */
function txnOffsetsOf(events: readonly HistoryEvent[]) {
  return events.flatMap((event) =>
    event.ev === "obs" && event.o.type === "gc.txn-offset"
      ? [{ t: event.t, actor: event.actor, o: event.o as unknown as TxnOffset & { errorCode: number } }]
      : [],
  );
}

/** The fixture with KIP-890's verification switched off, as on a broker before Kafka 3.6. */
function withoutVerification(scenario: ScenarioFile): ScenarioFile {
  const cluster = scenario.cluster;
  if (cluster === undefined) throw new Error("the fixture has no cluster");
  return {
    ...scenario,
    cluster: { ...cluster, broker: { ...(cluster.broker ?? {}), "transaction.partition.verification.enable": false } },
  };
}

describe("chaos-eos, drawn faults: a TxnOffsetCommit retransmitted on a connection its client had closed", () => {
  it("seed 316: lands inside the producer's next transaction, which already holds offsets, and moves the offset back", async () => {
    const { summary, result } = await runScenario(fixture("chaos-eos-316-stale-txn-offset-commit.json"), { host: "inline", seed: 316 });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["committed-offsets-monotonic"]);
    const violation = failing[0]?.[1].violations[0];
    // The checker tells the carrier's trip; the test finds it again on its own below.
    expect(violation?.message).toBe(
      "group pipeline: in-7 committed 62 after 64 (by xB2QQGxDRD2JYUrmyMZw2A); its TxnOffsetCommit from member-3 was sent at 29.776 s and arrived at 35.976 s, on a connection member-3 had closed at 34.776 s (closed by its client: a request timed out)",
    );

    const events = result.log.toArray();
    const { stale, carrier, closed, ongoing } = staleOffset(events, violation?.t as number, violation?.message as string);
    // Sent during the cut, delivered after the client closed the connection (request.timeout.ms, 5 s here).
    expect(carrier.t).toBe(CARRIER_316.sent);
    expect(carrier.at).toEqual([CARRIER_316.delivered]);
    expect(closed?.t).toBe(CARRIER_316.closed);
    expect(stale.o.outcome).toBe("pending");
    // The producer's transaction of the moment had already written offsets to the log, so the broker does not
    // verify this one (UnifiedLog.maybeStartTransactionVerification: hasOngoingTransaction), and the epoch is the
    // same under transaction version 1: Kafka takes it too. The group coordinator asked nobody when it came.
    expect(ongoing.length).toBeGreaterThan(0);
    const verifying = events.filter(
      (event) =>
        event.ev === "send" &&
        event.type === "AddPartitionsToTxnBrokerRequest" &&
        event.from === stale.actor &&
        event.t >= CARRIER_316.delivered &&
        event.t <= stale.t,
    );
    expect(verifying).toEqual([]);
  }, 60_000);

  it("seed 15: comes between two of its producer's transactions, is verified with the transaction coordinator and refused", async () => {
    const { summary, result } = await runScenario(fixture("chaos-eos-15-stale-txn-offset-commit.json"), { host: "inline", seed: 15 });
    expect(Object.entries(summary.checks).filter(([, check]) => !check.ok)).toEqual([]);
    const events = result.log.toArray();
    const refused = txnOffsetsOf(events).filter(({ o }) => o.errorCode === ErrorCode.INVALID_TXN_STATE);
    // (in-0@107 at 39088220 before the producer stopped drawing randoms for keyed records, at 39088477 before 879864a: the
    // acknowledgements the one-way cut holds moved the verification's answer.)
    expect(refused.map(({ t, o }) => `${t} ${o.transactionalId} ${o.topic}-${o.partition}@${o.offset} ${o.outcome}`)).toEqual([
      "39097447 pipeline-member-1 in-0@101 rejected",
    ]);
    const refusal = refused[0];
    if (refusal === undefined) throw new Error("no refusal");
    // The request: sent during the cut (32.9 s), its connection closed by member-1 on request.timeout.ms (37.9 s),
    // delivered at 39.1 s.
    const answer = events.find(
      (event) => event.ev === "send" && event.t === refusal.t && event.type === "TxnOffsetCommitResponse" && event.to === "member-1",
    );
    // The request is the last one on the connection the answer names to arrive by then.
    const carrier = events
      .filter(
        (event): event is Extract<HistoryEvent, { ev: "send" }> =>
          event.ev === "send" &&
          event.type === "TxnOffsetCommitRequest" &&
          event.from === "member-1" &&
          answer?.ev === "send" &&
          event.conn === -(answer.conn ?? 0) &&
          event.at.some((at) => at <= refusal.t),
      )
      .at(-1);
    expect([carrier?.t, carrier?.at]).toEqual([32_895_104, [39_095_690]]);
    const closed = events.find(
      (event) => event.ev === "conn" && event.actor === "member-1" && event.gen === carrier?.conn && event.what === "close",
    );
    expect(closed?.t).toBe(37_895_104);
    // Between its arrival and the refusal, the group coordinator asked the producer's transaction coordinator (AddPartitionsToTxn v4, verifyOnly).
    const asked = events.filter(
      (event) =>
        event.ev === "send" &&
        event.type === "AddPartitionsToTxnBrokerRequest" &&
        event.from === refusal.actor &&
        event.t >= 39_095_690 &&
        event.t < refusal.t,
    );
    expect(asked.map((event) => (event.ev === "send" ? `${event.from}->${event.to}` : ""))).toEqual(["coordinator-0->txn-coordinator-1"]);
    // Nothing of the producer's was pending in the offsets log when it came: its last transaction had ended.
    const markers = events.filter((event) => event.ev === "obs" && event.o.type === "gc.txn-marker" && event.t < refusal.t);
    const lastMarkerAt =
      markers
        .filter((event) =>
          event.ev === "obs" ? (event.o as unknown as { producerId: number }).producerId === refusal.o.producerId : false,
        )
        .at(-1)?.t ?? 0;
    expect(
      txnOffsetsOf(events).filter(
        ({ t, o }) => o.producerId === refusal.o.producerId && o.outcome === "pending" && t > lastMarkerAt && t < refusal.t,
      ),
    ).toEqual([]);
  }, 60_000);

  // The faults drawn for seed 59, run with seed 2: since the producer stopped drawing from its random stream for
  // keyed records (KIP-794's partitioner), seed 59's own run no longer fails.
  it("seed 59's faults, verification off (Kafka before 3.6): a request between two transactions is taken and moves the offset back", async () => {
    const { summary, result } = await runScenario(withoutVerification(fixture("chaos-eos-59-stale-txn-offset-commit.json")), {
      host: "inline",
      seed: 2,
    });
    const failing = Object.entries(summary.checks).filter(([, check]) => !check.ok);
    expect(failing.map(([name]) => name)).toEqual(["committed-offsets-monotonic"]);
    const violation = failing[0]?.[1].violations[0];
    expect(violation?.message).toBe(
      "group pipeline: in-3 committed 146 after 187 (by fsYrShdDS7CJPDzexOZ_qw); its TxnOffsetCommit from member-3 was sent at 42.359 s and arrived at 48.560 s, on a connection member-3 had closed at 47.359 s (closed by its client: a request timed out)",
    );
    const events = result.log.toArray();
    const { carrier, closed, ongoing } = staleOffset(events, violation?.t as number, violation?.message as string);
    expect(closed?.t).toBeLessThan(carrier.at[0] as number);
    // Its producer had written nothing to the offsets log since its last marker: the request opened a transaction
    // of its own there, which the producer's next marker committed. Nobody was asked.
    expect(ongoing).toEqual([]);
    expect(events.some((event) => event.ev === "send" && event.type === "AddPartitionsToTxnBrokerRequest")).toBe(false);
  }, 60_000);
});
