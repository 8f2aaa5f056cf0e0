import { fileURLToPath } from "node:url";
import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { observationsIn } from "./helpers.js";

/**
 * chaos-eos with the faults `kcsim hunt` drew from seed 62 (its plan, kept as a fixture). A Produce of member-2's
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

    // The one transaction that ends this way, and the batch that ended it: out-1, sequence 138, the transaction's first
    // there. (At sequence 144, 0.3 s later, before 879864a: the acknowledgements the cut holds moved this run's timing.)
    const aborts = observed("producer.txn").filter(({ o }) => o.error === "OUT_OF_ORDER_SEQUENCE_NUMBER");
    expect(aborts.map(({ t, actor, o }) => `${t} ${actor} ${o.outcome}`)).toEqual(["33966832 member-2 aborted"]);
    const refused = observed("producer.ack").filter(({ o }) => o.errorCode === ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(refused.map(({ t, actor, o }) => `${t} ${actor} ${o.topic}-${o.partition}@${o.baseSequence}`)).toEqual([
      "33954225 member-2 out-1@138",
    ]);

    // The old request: sent at 21.3 s, its connection closed by member-2 at 26.3 s (request.timeout.ms), delivered at 33.9 s.
    const stale = events
      .filter(
        (event): event is Send =>
          event.ev === "send" && event.type === "ProduceRequest" && event.from === "member-2" && event.to === "broker-1",
      )
      .filter((event) => event.at.some((at) => at > event.t + 5_000_000));
    expect(stale.map((event) => [event.t, event.at])).toEqual([[21_270_030, [33_870_805]]]);
    const closed = events.find(
      (event) => event.ev === "conn" && event.actor === "member-2" && event.gen === stale[0]?.conn && event.what === "close",
    );
    expect(closed?.t).toBe(26_270_030);

    // Between its delivery and the refused batch, nothing of the producer's was appended to out-1: the verification it
    // started was still there, with the old request's sequence as its lowest.
    const appended = observed("producer.ack").filter(
      ({ t, actor, o }) => actor === "member-2" && o.partition === 1 && o.errorCode === ErrorCode.NONE && t > 33_870_805 && t < 33_954_225,
    );
    expect(appended).toEqual([]);

    // The client aborts, bumps its epoch (InitProducerId) and commits its next transaction.
    const after = observed("producer.txn").filter(({ t, actor }) => actor === "member-2" && t > 33_966_832);
    expect(after[0]?.o).toMatchObject({ outcome: "committed", producerEpoch: 1 });
  }, 60_000);
});
