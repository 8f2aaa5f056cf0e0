import { fileURLToPath } from "node:url";
import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * chaos-eos with the faults `kcsim hunt` drew from seed 62 (its plan, kept as a fixture). A Produce of member-3's
 * transactional producer is held by a cut; the client closes the connection on request.timeout.ms and goes on. The
 * kernel's retransmission delivers the old request seven seconds later, between two of the producer's transactions.
 * The partition leader starts a KIP-890 verification for it (the producer has no transaction open there), whose
 * state records the request's old sequence as the lowest one; the request is not appended, so nothing ends that
 * state. The producer's next transaction's first batch on the partition is verified, and then refused by that
 * lowest sequence (OUT_OF_ORDER_SEQUENCE_NUMBER, Kafka's `ProducerAppendInfo.checkSequence` with its
 * `VerificationStateEntry`), so the transaction aborts and the producer bumps its epoch. Kafka's code does the same;
 * no record is lost or duplicated, and every checker passes.
 */
const fixture = loadScenarioFile(fileURLToPath(new URL("./fixtures/chaos-eos-62-stale-produce-verification.json", import.meta.url)));

type Send = Extract<HistoryEvent, { ev: "send" }>;

describe("chaos-eos, drawn faults: a Produce retransmitted on a connection its client had closed", () => {
  it("seed 62: leaves a verification behind that aborts the producer's next transaction on the partition", async () => {
    const { summary, result } = await runScenario(fixture, { host: "inline", seed: 62 });
    expect(Object.entries(summary.checks).filter(([, check]) => !check.ok)).toEqual([]);
    const events = result.log.toArray();
    const observed = (type: string) => observationsIn(events, type);

    // The one transaction that ends this way, and the batch that ended it: out-3, sequence 145, the transaction's first
    // there. (member-2's out-1@138 at 33.954 s before the producer stopped drawing randoms for keyed records, KIP-794's
    // partitioner; out-1@144, 0.3 s later, before 879864a: the acknowledgements the cut holds moved this run's timing.)
    const aborts = observed("producer.txn").filter(({ o }) => o.error === "OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(aborts.map(({ t, actor, o }) => `${t} ${actor} ${o.outcome}`)).toEqual(["34236215 member-3 aborted"]);
    const refused = observed("producer.ack").filter(({ o }) => o.errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    // The broker refused one batch; the application's sends after it, until it aborted, failed at once with the
    // transaction's error (no batch, no sequence: Kafka's send in an abortable error state).
    expect(
      refused
        .filter(({ o }) => Number(o.baseSequence) >= 0)
        .map(({ t, actor, o }) => `${t} ${actor} ${o.topic}-${o.partition}@${o.baseSequence}`),
    ).toEqual(["34087189 member-3 out-3@145"]);
    expect(refused.every(({ t, actor, o }) => actor === "member-3" && o.partition === 3 && t >= 34_087_189 && t < 34_236_215)).toBe(true);

    // The old request: sent at 21.3 s, its connection closed by member-3 at 26.3 s (request.timeout.ms), delivered at 33.9 s.
    const stale = events
      .filter(
        (event): event is Send =>
          event.ev === "send" && event.type === "ProduceRequest" && event.from === "member-3" && event.to === "broker-0",
      )
      .filter((event) => event.at.some((at) => at > event.t + 5_000_000));
    expect(stale.map((event) => [event.t, event.at])).toEqual([[21_333_096, [33_933_705]]]);
    const closed = events.find(
      (event) => event.ev === "conn" && event.actor === "member-3" && event.gen === stale[0]?.conn && event.what === "close",
    );
    expect(closed?.t).toBe(26_333_096);

    // Between its delivery and the refused batch, nothing of the producer's was appended to out-3: the verification it
    // started was still there, with the old request's sequence as its lowest.
    const appended = observed("producer.ack").filter(
      ({ t, actor, o }) => actor === "member-3" && o.partition === 3 && o.errorCode === ErrorCode.NONE && t > 33_933_705 && t < 34_087_189,
    );
    expect(appended).toEqual([]);

    // The client aborts, bumps its epoch (InitProducerId) and commits its next transaction.
    const after = observed("producer.txn").filter(({ t, actor }) => actor === "member-3" && t > 34_236_215);
    expect(after[0]?.o).toMatchObject({ outcome: "committed", producerEpoch: 1 });
  }, 60_000);
});
