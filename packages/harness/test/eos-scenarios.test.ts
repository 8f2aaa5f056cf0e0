import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ErrorCode } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import { observationOf } from "../src/analysis/observations.js";
import { accountResults } from "../src/analysis/result-accounting.js";
import { sinkDuplicates } from "../src/analysis/sink-duplicates.js";
import { sinkStores } from "../src/analysis/sink-stores.js";
import type { HistoryEvent } from "../src/history/history-event.js";
import type { SimulationSpec } from "../src/kernel/simulation-spec.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile, toSimulationSpec } from "../src/scenario/load-scenario.js";

/**
 * Issue 8's "Must show" items, on the scenarios themselves (scenarios/*.json):
 * exactly-once with transactions under chaos, attributed duplicates without
 * them, the fenced zombie, and where exactly-once stops (append vs upsert sink).
 * Each scenario runs once in the inline host (about 5-15 s each on 2 cores).
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));

interface Run {
  readonly checks: Record<string, { ok: boolean; violations: readonly { message: string }[] }>;
  readonly events: readonly HistoryEvent[];
  readonly spec: SimulationSpec;
}

async function run(name: string, seed?: number): Promise<Run> {
  const scenario = loadScenarioFile(join(root, "scenarios", `${name}.json`));
  const overrides = seed === undefined ? {} : { seed };
  const { summary, result } = await runScenario(scenario, { host: "inline", ...overrides });
  return { checks: summary.checks, events: result.events, spec: toSimulationSpec(scenario, overrides) };
}

const failing = (r: Run) =>
  Object.entries(r.checks)
    .filter(([, c]) => !c.ok)
    .map(([name, c]) => `${name}: ${c.violations[0]?.message ?? ""}`);

function observations<T extends Parameters<typeof observationOf>[1]>(events: readonly HistoryEvent[], type: T) {
  const found: { t: number; actor: string; o: NonNullable<ReturnType<typeof observationOf<T>>> }[] = [];
  for (const event of events) {
    const o = observationOf(event, type);
    if (o !== undefined && event.ev === "obs") found.push({ t: event.t, actor: event.actor, o });
  }
  return found;
}

const lifecycle = (events: readonly HistoryEvent[], actor: string, what: string) =>
  events.filter((e) => e.ev === "life" && e.actor === actor && e.what === what).map((e) => e.t);

describe("chaos-eos: transactions and read_committed give exactly-once output under chaos", () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: every checker passes, each committed input has one result, and the faults happened`, async () => {
      const r = await run("chaos-eos", seed);
      expect(failing(r)).toEqual([]);
      expect(Object.keys(r.checks)).toEqual(
        expect.arrayContaining(["exactly-once-output", "output-duplicates-attributed", "no-loss-read-committed", "sink-no-duplicates"]),
      );

      const [account, ...others] = accountResults(r.events, r.spec);
      expect(others).toEqual([]);
      expect(account?.transactional).toBe(true);
      expect(account?.committedInput).toBeGreaterThan(1000);
      expect(account?.results.byInput.size).toBe(account?.committedInput);
      expect(account?.duplicates).toEqual([]);
      expect(account?.strays).toEqual([]);
      expect(account?.missing.size).toBe(0);

      // Not a quiet run: transactions were aborted (markers written), producers fenced, the zombie removed.
      const aborts = observations(r.events, "broker.txn-marker").filter((m) => !m.o.committed && m.o.topic === "out");
      expect(aborts.length).toBeGreaterThan(0);
      expect(observations(r.events, "producer.txn").filter((p) => p.o.outcome !== "committed").length).toBeGreaterThan(0);
      expect(observations(r.events, "gc.member-removed").some((m) => m.o.groupId === "pipeline")).toBe(true);
      expect(lifecycle(r.events, "txn-coordinator-0", "crash").length + lifecycle(r.events, "txn-coordinator-1", "crash").length).toBe(2);
    });
  }
});

describe("eos-off: the same pipeline without transactions", () => {
  const causesOf = (account: ReturnType<typeof accountResults>[number] | undefined) =>
    [...new Set(account?.duplicates.map((d) => d.cause))].sort();
  const removalsOf = (r: Run, actor: string) => {
    const ids = new Set(
      observations(r.events, "member.state")
        .filter((s) => s.actor === actor)
        .map((s) => s.o.memberId),
    );
    return observations(r.events, "gc.member-removed").filter((m) => m.o.groupId === "pipeline" && ids.has(m.o.memberId));
  };

  // (Seeds 37 and 35 before the producer stopped drawing randoms for keyed records, KIP-794's partitioner. Of seeds
  // 1..100 since, 10, 16 and 50 have all three causes, and only 10 of them duplicates the zombie processed first.)
  it("seed 10: fails exactly-once-output only, with duplicates of each cause (crash before commit, fenced member, zombie), all attributed", async () => {
    const r = await run("eos-off", 10);
    expect(failing(r).map((f) => f.slice(0, f.indexOf(":")))).toEqual(["exactly-once-output"]);
    expect(r.checks["exactly-once-output"]?.violations[0]?.message).toMatch(
      /^pipeline: \d+ of \d+ committed input records have more than one result in out \(.*crash before commit x\d+/,
    );

    const [account] = accountResults(r.events, r.spec);
    expect(account?.transactional).toBe(false);
    for (const duplicate of account?.duplicates ?? []) {
      expect(duplicate.cause, duplicate.input).not.toBeNull();
      expect(duplicate.copies.length).toBeGreaterThan(1);
    }
    expect(causesOf(account)).toEqual(["crash before commit", "fenced member (session-timeout)", "zombie"]);
    // Only duplicates: nothing lost, nothing from an aborted transaction.
    expect(account?.missing.size).toBe(0);
    expect(account?.strays).toEqual([]);

    // The faults behind them: member-3 crashed inside the group coordinator's outage (its commitSync retried), and
    // the paused member-2 was fenced for its session while paused.
    expect(lifecycle(r.events, "member-3", "crash")).toEqual([28_000_000]);
    const [coordinatorDown] = lifecycle(r.events, "coordinator-0", "crash");
    const [coordinatorUp] = lifecycle(r.events, "coordinator-0", "restart");
    expect(coordinatorDown).toBeLessThan(28_000_000);
    expect(coordinatorUp).toBeGreaterThan(28_000_000);
    const [paused] = lifecycle(r.events, "member-2", "pause");
    const [resumed] = lifecycle(r.events, "member-2", "resume");
    const fenced = removalsOf(r, "member-2").filter((m) => m.o.reason === "session-timeout" && m.t > (paused ?? 0) && m.t < (resumed ?? 0));
    expect(fenced.length).toBe(1);
  });

  it("seed 10: the resumed zombie processes records ahead of their new owner, and 'zombie' explains those duplicates too", async () => {
    const r = await run("eos-off", 10);
    expect(r.checks["output-duplicates-attributed"]?.ok).toBe(true);
    const [account] = accountResults(r.events, r.spec);
    expect(causesOf(account)).toEqual(["crash before commit", "fenced member (session-timeout)", "zombie"]);

    const [fencedAt] = removalsOf(r, "member-2").map((m) => m.t);
    const learnedAt = observations(r.events, "member.state").find((s) => s.actor === "member-2" && s.o.to === "FENCED")?.t;
    if (fencedAt === undefined || learnedAt === undefined) throw new Error("member-2 was not fenced");
    const deliveries = observations(r.events, "member.records").filter((d) => d.actor.startsWith("member-"));
    const processors = (input: string) => {
      const at = input.lastIndexOf("@");
      const offset = Number(input.slice(at + 1));
      return deliveries.filter((d) =>
        d.o.ranges.some((r) => `${r.topic}-${r.partition}` === input.slice(0, at) && r.firstOffset <= offset && offset <= r.lastOffset),
      );
    };
    // Duplicates whose first processing was the zombie's: after its fencing, before it learned of it; then the owner's.
    const zombieFirst = (account?.duplicates ?? []).filter((d) => {
      const [first, second] = processors(d.input);
      return first?.actor === "member-2" && first.t > fencedAt && first.t < learnedAt && second?.actor !== "member-2";
    });
    expect(zombieFirst.length).toBeGreaterThan(0);
    for (const d of zombieFirst) expect(d.cause, d.input).toBe("zombie");
  });
});

describe("eos-zombie: a fenced zombie cannot commit offsets or produce into a committed transaction", () => {
  it("fences the paused member, refuses its TxnOffsetCommit with UNKNOWN_MEMBER_ID and aborts its transaction", async () => {
    const r = await run("eos-zombie");
    expect(failing(r)).toEqual([]);
    const [paused] = lifecycle(r.events, "member-1", "pause");
    const [resumed] = lifecycle(r.events, "member-1", "resume");
    if (paused === undefined || resumed === undefined) throw new Error("member-1 was not paused and resumed");

    // The zombie's member id, from its own observations.
    const memberId = observations(r.events, "member.state").find((s) => s.actor === "member-1")?.o.memberId;
    expect(memberId).toBeDefined();

    // Fenced: the group coordinator removed it (session timeout) while it was paused.
    const removal = observations(r.events, "gc.member-removed").find((m) => m.o.memberId === memberId);
    expect(removal?.o.reason).toBe("session-timeout");
    const fencedAt = removal?.t ?? Number.POSITIVE_INFINITY;
    expect(fencedAt).toBeGreaterThan(paused);
    expect(fencedAt).toBeLessThan(resumed);

    // The zombie's transactional producer (its id and epoch when it was fenced).
    const zombieTxnId = "pipeline-member-1";
    const ids = observations(r.events, "producer.id").filter((p) => p.actor === "member-1" && p.t < paused);
    const zombie = ids.at(-1)?.o;
    expect(zombie?.transactionalId).toBe(zombieTxnId);
    const isZombie = (o: { producerId: number; producerEpoch: number }) =>
      o.producerId === zombie?.producerId && o.producerEpoch === zombie?.producerEpoch;

    // After it resumed, its TxnOffsetCommit was refused with the right error, and none was accepted.
    const txnOffsets = observations(r.events, "gc.txn-offset").filter((c) => c.o.transactionalId === zombieTxnId && c.t > fencedAt);
    const refused = txnOffsets.filter((c) => c.o.outcome === "rejected");
    expect(refused.length).toBeGreaterThan(0);
    for (const c of refused) {
      expect(c.t).toBeGreaterThan(resumed);
      expect(c.o.memberId).toBe(memberId);
      expect(c.o.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    }
    const firstRefusal = refused[0]?.t ?? 0;
    expect(txnOffsets.filter((c) => c.o.outcome === "pending" && isZombie(c.o))).toEqual([]);

    // Its transaction was aborted: the producer saw the abort, abort markers went to out, no commit marker ever did.
    const ended = observations(r.events, "producer.txn").filter((p) => p.actor === "member-1" && p.t > resumed && isZombie(p.o));
    expect(ended.map((p) => p.o.outcome)).toEqual(["aborted"]);
    expect(ended[0]?.o.error).toMatch(/UNKNOWN_MEMBER_ID/);
    expect(ended[0]?.o.records).toBeGreaterThan(0);
    const markers = observations(r.events, "broker.txn-marker").filter((m) => isZombie(m.o) && m.t > fencedAt);
    expect(markers.some((m) => !m.o.committed && m.o.topic === "out")).toBe(true);
    expect(markers.filter((m) => m.o.committed)).toEqual([]);
    const batch = observations(r.events, "member.batch").find((b) => b.actor === "member-1" && b.t > resumed);
    expect(batch?.o.outcome).toBe("aborted");

    // It did produce after it was fenced, but none of those records is a committed result the verifier read.
    const zombieWrites = observations(r.events, "producer.ack")
      .filter((a) => a.actor === "member-1" && a.t > fencedAt && a.t <= firstRefusal && a.o.errorCode === 0 && isZombie(a.o))
      .flatMap((a) => Array.from({ length: a.o.count }, (_, i) => `${a.o.topic}-${a.o.partition}@${a.o.baseOffset + i}`));
    expect(zombieWrites.length).toBeGreaterThan(0);
    const read = new Set(
      observations(r.events, "sink.write")
        .filter((w) => w.actor.startsWith("verifier-"))
        .map((w) => `${w.o.inputTopic}-${w.o.inputPartition}@${w.o.inputOffset}`),
    );
    expect(read.size).toBeGreaterThan(0);
    expect(zombieWrites.filter((w) => read.has(w))).toEqual([]);

    // The input of its aborted batch has exactly one result, made by the member that took its partitions over.
    const [account] = accountResults(r.events, r.spec);
    expect(account?.duplicates).toEqual([]);
    expect(account?.strays).toEqual([]);
    for (const [topic, partitions] of Object.entries(batch?.o.offsets ?? {})) {
      for (const [partition, [first, last]] of Object.entries(partitions)) {
        for (let offset = first; offset <= last; offset++) {
          const copies = account?.results.byInput.get(`${topic}-${partition}@${offset}`) ?? [];
          expect(copies.map((c) => c.writer)).toEqual(["member-2"]);
        }
      }
    }
  });
});

describe("sinks: where exactly-once stops", () => {
  it("the append sink holds duplicate rows after a crash between the write and the commit", async () => {
    const r = await run("sink-append");
    expect(r.checks["sink-no-duplicates"]?.ok).toBe(false);
    expect(r.checks["sink-duplicates-attributed"]?.ok).toBe(true);
    expect(failing(r).filter((f) => !f.startsWith("sink-no-duplicates"))).toEqual([]);
    const duplicates = sinkDuplicates(r.events, r.spec);
    expect(duplicates.length).toBeGreaterThan(0);
    for (const d of duplicates) {
      expect(d.mode).toBe("append");
      expect(d.cause).toBe("crash before commit");
      expect(d.rows.length).toBeGreaterThan(1);
    }
    expect(r.checks["sink-no-duplicates"]?.violations[0]?.message).toBe(
      `etl: ${duplicates.length} input records have more than one row in the sink (crash before commit x${duplicates.length})`,
    );
  });

  it("the upsert sink holds every record once through the same re-deliveries", async () => {
    const r = await run("sink-upsert");
    expect(failing(r)).toEqual([]);
    expect(sinkDuplicates(r.events, r.spec)).toEqual([]);
    // The same crashes re-delivered records: they were written again and overwrote their own rows.
    const writes = observations(r.events, "sink.write").filter((w) => w.o.groupId === "etl");
    const keys = writes.map((w) => `${w.o.inputTopic}-${w.o.inputPartition}@${w.o.inputOffset}`);
    const rewritten = keys.length - new Set(keys).size;
    expect(rewritten).toBeGreaterThan(0);
    const store = sinkStores(r.events).get("etl");
    expect(store?.mode).toBe("upsert");
    expect(store?.writes).toBe(writes.length);
    expect(store?.rowsByInput.size).toBe(new Set(keys).size);
  });
});
