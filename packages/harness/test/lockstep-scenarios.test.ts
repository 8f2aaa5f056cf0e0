import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ActorSpec,
  DEFAULT_REGISTRY,
  InlineHost,
  LockstepHost,
  loadScenarioFile,
  type NetworkSpec,
  type RunResult,
  toSimulationSpec,
} from "../src/index.js";

/**
 * Issue 6's determinism proof on protocol scenarios: inline and lockstep
 * (two shards, so that windows merge the effects of shards running side by
 * side, and a window with one busy shard runs on) give byte-identical histories. A representative
 * subset, each cut to the part where its faults happen; the whole sweep
 * (every scenario, every seed) is `pnpm bench lockstep-sweep`.
 */
const hosts: LockstepHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

const scenario = (name: string) => loadScenarioFile(fileURLToPath(new URL(`../../../scenarios/${name}.json`, import.meta.url)));
const lines = (result: RunResult) => result.events.map((e) => JSON.stringify(e));
const lifecycle = (result: RunResult) => new Set(result.events.flatMap((e) => (e.ev === "life" ? [e.what] : [])));
/** The scenario's pingers, each waiting `timeoutMs` for a pong before it pings again. */
const pingersWaiting =
  (timeoutMs: number) =>
  (actor: ActorSpec): ActorSpec =>
    actor.kind === "pinger" && typeof actor.config === "object" && actor.config !== null && !Array.isArray(actor.config)
      ? { ...actor, config: { ...actor.config, timeoutMs } }
      : actor;

/**
 * ping-pong at seed 1 for 20 s on a slow network (20 ms per message, a break noticed 2 ms after the loss), its
 * pingers waiting `timeoutMs` for a pong: lockstep windows are 2 ms there, ten times shorter than a message.
 */
const slowPingPong = (timeoutMs: number): Promise<RunResult> =>
  compare(
    "ping-pong",
    1,
    20_000_000,
    { latency: { dist: "fixed", ms: 20 }, breakDetection: { dist: "fixed", ms: 2 } },
    pingersWaiting(timeoutMs),
  );

async function compare(
  name: string,
  seed: number,
  durationUs: number,
  network: Partial<NetworkSpec> = {},
  actorConfig: (actor: ActorSpec) => ActorSpec = (actor) => actor,
): Promise<RunResult> {
  const base = toSimulationSpec(scenario(name), { seed });
  const plan = { ...base.plan, network: { ...base.plan.network, ...network } };
  const spec = { ...base, durationUs, plan, actors: base.actors.map(actorConfig) };
  const inline = new InlineHost(spec, DEFAULT_REGISTRY).run();
  const host = new LockstepHost(spec, { actorsPerWorker: Math.ceil(spec.actors.length / 2) });
  hosts.push(host);
  const lockstep = await host.run();
  expect(lines(lockstep), `${name} seed ${seed}`).toEqual(lines(inline));
  expect(lockstep.historyHash).toBe(inline.historyHash);
  // The same events handled (messages, live timers, process events): what `kcsim run` prints as "events".
  expect(lockstep.eventsProcessed).toBe(inline.eventsProcessed);
  return inline;
}

describe("lockstep agrees with inline on protocol scenarios", () => {
  it("chaos-consumer (20 KIP-848 members): broken connections, a partition, pauses, app stalls, member and coordinator crashes", async () => {
    // The chaos lies in the first 150 s; 100 s of it hold every kind of fault but the last pause and close.
    const inline = await compare("chaos-consumer", 1, 100_000_000);
    const { router } = inline;
    // Losses broke connections, the partition held bytes back, and requests timed out and closed theirs.
    expect([router.breaks, router.broken, router.held].every((n) => n > 0)).toBe(true);
    expect(inline.events.some((e) => e.ev === "conn" && e.what === "close")).toBe(true);
    expect(lifecycle(inline)).toEqual(new Set(["start", "pause", "resume", "command", "crash", "restart"]));
    expect(inline.events.some((e) => e.ev === "life" && e.actor === "coordinator-0" && e.what === "crash")).toBe(true);
  }, 180_000);

  it("chaos-eos (producers, transactions, read_committed): crashes mid-transaction, zombie fencing, coordinator and broker failover", async () => {
    // Its first 42 s: a member crash, a transaction coordinator's crash, the zombie's pause and resume,
    // the group coordinator's crash, the broker partition, a broker crash and restart.
    const inline = await compare("chaos-eos", 2, 42_000_000);
    expect(inline.router.breaks).toBeGreaterThan(0);
    const crashed = new Set(inline.events.flatMap((e) => (e.ev === "life" && e.what === "crash" ? [e.actor.replace(/-\d+$/, "")] : [])));
    expect(crashed).toEqual(new Set(["member", "txn-coordinator", "coordinator", "broker"]));
    const types = new Set(inline.events.flatMap((e) => (e.ev === "obs" ? [e.o.type] : [])));
    for (const type of ["producer.ack", "txn.state", "gc.txn-offset", "sink.write"]) expect(types, type).toContain(type);
  }, 180_000);

  it("chaos-eos-tv2 (transaction version 2): the leaders' and the group coordinator's implicit adds, an epoch bump per EndTxn", async () => {
    // Its first 30 s: a member crash and its producer's fence, a transaction coordinator's crash, the zombie's pause.
    const inline = await compare("chaos-eos-tv2", 1, 30_000_000);
    const adders = new Set(inline.events.flatMap((e) => (e.ev === "send" && e.type === "AddPartitionsToTxnBrokerRequest" ? [e.from] : [])));
    expect([...adders].some((id) => id.startsWith("broker-"))).toBe(true);
    expect(inline.events.some((e) => e.ev === "send" && e.type === "AddPartitionsToTxnRequest")).toBe(false);
    expect(inline.events.some((e) => e.ev === "obs" && e.o.type === "producer.id" && e.o.reason === "end-txn")).toBe(true);
  }, 180_000);

  it("ping-pong on a slow network whose breaks are noticed sooner than a message arrives (the window follows the sooner)", async () => {
    // 20 ms per message, breaks noticed 2 ms after the loss: lockstep windows of 20 ms let a break notice land
    // inside a window its shard had already run past (histories differed before the window took the 2 ms floor).
    // Pingers wait 100 ms for a pong, longer than a round trip.
    const inline = await slowPingPong(100);
    expect(inline.router.breaks).toBeGreaterThan(50);
  }, 180_000);

  it("ping-pong on a slow network where a break overtakes a message already in flight toward the actor whose send broke it", async () => {
    // 20 ms per message, breaks noticed after 2 ms, pingers giving up after 5 ms: pings cross pongs whose sends
    // break the connection. A ping due less than one window (2 ms) after the break used to be lost inline but
    // delivered in lockstep, which decides a break only when the window of its send is over; both now lose
    // exactly what is due a window or more after the break.
    const inline = await slowPingPong(5);
    expect(inline.router.breaks).toBeGreaterThan(50);
    expect(inline.events.some((e) => e.ev === "lost" && e.why === "its connection broke")).toBe(true);
  }, 180_000);

  it("static-restart (static members crash and come back within the session)", async () => {
    await compare("static-restart", 3, 120_000_000);
  }, 180_000);
});
