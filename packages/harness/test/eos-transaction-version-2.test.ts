import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { observationOf } from "../src/analysis/observations.js";
import { accountResults } from "../src/analysis/result-accounting.js";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { expandGroups } from "../src/scenario/expand-groups.js";
import { loadScenarioFile, toSimulationSpec } from "../src/scenario/load-scenario.js";

/**
 * chaos-eos under transaction version 2 (scenarios/chaos-eos-tv2.json: the
 * cluster feature transaction.version=2, KIP-890 part 2 as Kafka 4.2 runs
 * it): the same chaos, exactly-once still holds, and the run is a TV2 run —
 * no AddPartitionsToTxn or AddOffsetsToTxn from the producers, the leaders
 * and the group coordinator add partitions themselves, every EndTxn bumps
 * the producer epoch, and markers carry the bumped epoch.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const scenario = (name: string) => loadScenarioFile(join(root, "scenarios", `${name}.json`));

function observations<T extends Parameters<typeof observationOf>[1]>(events: readonly HistoryEvent[], type: T) {
  const found: { t: number; actor: string; o: NonNullable<ReturnType<typeof observationOf<T>>> }[] = [];
  for (const event of events) {
    const o = observationOf(event, type);
    if (o !== undefined && event.ev === "obs") found.push({ t: event.t, actor: event.actor, o });
  }
  return found;
}

const sendsOf = (events: readonly HistoryEvent[], type: string) =>
  events.flatMap((e) => (e.ev === "send" && e.type === type ? [{ from: e.from, to: e.to }] : []));

describe("scenario expansion: cluster.features transaction.version", () => {
  it("gives the level to the transaction coordinators, the transactional producers and the members (for their outputs), and nothing at 0", () => {
    const tv2 = expandGroups(scenario("chaos-eos-tv2"));
    const levels = (actors: typeof tv2) =>
      new Map(actors.map((a) => [a.id, (a.config as Record<string, unknown>).transactionVersion as number | undefined] as const));
    const atTv2 = levels(tv2);
    for (const id of ["txn-coordinator-0", "txn-coordinator-1", "member-1", "member-4", "verifier-1"]) expect(atTv2.get(id), id).toBe(2);
    // The brokers and group coordinators follow the requests' versions; producer-1 is idempotent, not transactional.
    for (const id of ["broker-0", "coordinator-0", "producer-1"]) expect(atTv2.get(id), id).toBeUndefined();
    for (const [id, level] of levels(expandGroups(scenario("chaos-eos")))) expect(level, id).toBeUndefined();
  });
});

describe("chaos-eos-tv2: exactly-once under chaos with transaction version 2", () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: every checker passes, and the run is a transaction version 2 run`, async () => {
      const file = scenario("chaos-eos-tv2");
      const { summary, result } = await runScenario(file, { host: "inline", seed });
      const failing = Object.entries(summary.checks).filter(([, c]) => !c.ok);
      expect(failing.map(([name, c]) => `${name}: ${c.violations[0]?.message ?? ""}`)).toEqual([]);
      const events = result.events;

      const [account, ...others] = accountResults(events, toSimulationSpec(file, { seed }));
      expect(others).toEqual([]);
      expect(account?.transactional).toBe(true);
      expect(account?.committedInput).toBeGreaterThan(1000);
      expect(account?.results.byInput.size).toBe(account?.committedInput);
      expect(account?.duplicates).toEqual([]);
      expect(account?.missing.size).toBe(0);

      // No client adds anything: the leaders and the group coordinator do (AddPartitionsToTxn v5, verifyOnly false).
      expect(sendsOf(events, "AddPartitionsToTxnRequest")).toEqual([]);
      expect(sendsOf(events, "AddOffsetsToTxnRequest")).toEqual([]);
      const adders = new Set(sendsOf(events, "AddPartitionsToTxnBrokerRequest").map((s) => s.from.replace(/-\d+$/, "")));
      expect(adders).toEqual(new Set(["broker", "coordinator"]));

      // Each EndTxn the coordinator answered moved the producer to the next epoch, which it reports.
      const adopted = observations(events, "producer.id").filter((p) => p.o.reason === "end-txn");
      expect(adopted.length).toBeGreaterThan(50);
      const ended = observations(events, "producer.txn").filter((p) => p.o.outcome === "committed");
      expect(ended.length).toBeGreaterThan(50);
      for (const txn of ended) {
        const next = adopted.find((p) => p.actor === txn.actor && p.t === txn.t);
        expect(next?.o, `${txn.actor} at ${txn.t}`).toMatchObject({ producerId: txn.o.producerId, producerEpoch: txn.o.producerEpoch + 1 });
      }
      // A producer's transactions each run at an epoch of their own, rising.
      const byTransactionalId = new Map<string, number[]>();
      for (const txn of observations(events, "producer.txn")) {
        const epochs = byTransactionalId.get(`${txn.o.transactionalId}/${txn.o.producerId}`) ?? [];
        epochs.push(txn.o.producerEpoch);
        byTransactionalId.set(`${txn.o.transactionalId}/${txn.o.producerId}`, epochs);
      }
      for (const [id, epochs] of byTransactionalId) {
        for (let i = 1; i < epochs.length; i++) expect(epochs[i], `${id}: ${epochs.join(",")}`).toBeGreaterThan(epochs[i - 1] as number);
      }
      // The coordinator ends each transaction one epoch above the one it ran at, and its markers carry that epoch.
      const ongoingEpoch = new Map<string, number>();
      const ends = new Set<string>();
      for (const { o } of observations(events, "txn.state")) {
        if (o.to === "Ongoing") ongoingEpoch.set(o.transactionalId, o.producerEpoch);
        if (o.to !== "PrepareCommit" && o.to !== "PrepareAbort") continue;
        expect(o.producerEpoch, `${o.transactionalId} ${o.from} -> ${o.to}`).toBe((ongoingEpoch.get(o.transactionalId) ?? -2) + 1);
        ends.add(`${o.producerId}/${o.producerEpoch}/${o.to === "PrepareCommit"}`);
      }
      const markers = observations(events, "broker.txn-marker").filter((m) => m.o.topic === "out");
      expect(markers.length).toBeGreaterThan(0);
      for (const { o } of markers) expect(ends).toContain(`${o.producerId}/${o.producerEpoch}/${o.committed}`);
    }, 120_000);
  }
});
