import { fileURLToPath } from "node:url";
import { encode } from "@kcsim/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE_REGISTRY_MODULE, registry as fixtures } from "../src/hosts/fixtures/fixture-registry.js";
import {
  type ActorsPerWorker,
  DEFAULT_REGISTRY,
  type HistoryEvent,
  InlineHost,
  judge,
  LockstepHost,
  type LockstepTransport,
  loadScenarioFile,
  type RunResult,
  type SimulationSpec,
  toSimulationSpec,
} from "../src/index.js";
import { actor, testSpec } from "./helpers.js";
import { compressedPingPong, faultySpec, withEveryFault } from "./worker-fixtures.js";

const hosts: LockstepHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

function lockstep(
  spec: SimulationSpec,
  actorsPerWorker: ActorsPerWorker,
  transport: LockstepTransport = "shared",
  registryModule: string | null = null,
) {
  const host = new LockstepHost(spec, { actorsPerWorker, transport, registryModule });
  hosts.push(host);
  return host;
}

const lines = (result: RunResult) => result.events.map((e) => JSON.stringify(e));
const pongs = (events: readonly HistoryEvent[], pinger: string, after: number) =>
  events.filter((e) => e.ev === "obs" && e.actor === pinger && e.o.type === "ping.pong" && e.t > after).length;

/** Frames a test puts on the wire: planted faults for the faulty pongers, and bytes that are no message. */
function inject(core: InlineHost["core"]): void {
  core.injectFrame(60_000, "tester", "ponger-a", encode({ type: "SimPing", seq: 999, payload: "throw" }));
  core.injectFrame(70_000, "tester", "ponger-b", Uint8Array.from([0xc1, 0xc1, 0xc1]));
}

describe("lockstep host", () => {
  it("gives ping-pong histories byte-identical to inline across seeds, shardings and transports, faults included", async () => {
    // (One actor per worker over shared memory, seeds 1, 2 and 4: determinism.test.ts.)
    const cases: [number, ActorsPerWorker, LockstepTransport, "ping-pong" | "datagram-stress"][] = [
      [5, 1, "port", "ping-pong"],
      [6, "auto", "shared", "datagram-stress"],
    ];
    for (const [seed, perWorker, transport, file] of cases) {
      const spec = compressedPingPong(seed, file);
      const inline = new InlineHost(spec, DEFAULT_REGISTRY).run();
      const result = await lockstep(spec, perWorker, transport).run();
      const what = inline.events.flatMap((e) => (e.ev === "life" ? [e.what] : []));
      expect(what, `seed ${seed}`).toEqual(expect.arrayContaining(["crash", "restart", "pause", "resume"]));
      expect(inline.router.dropped + inline.router.partitioned + inline.router.duplicated + inline.router.breaks).toBeGreaterThan(0);
      expect(lines(result), `seed ${seed}, ${perWorker} per worker, ${transport}`).toEqual(lines(inline));
      expect(result.historyHash).toBe(inline.historyHash);
      // One actor per worker: the crash terminated ponger-1's worker and the restart built a new one.
      expect(result.actors["ponger-1"]?.state).toBe("running");
    }
  });

  it("agrees with inline on a protocol scenario whose members arm zero-delay timers (sticky-leave, classic consumers)", async () => {
    const spec = toSimulationSpec(loadScenarioFile(fileURLToPath(new URL("../../../scenarios/sticky-leave.json", import.meta.url))), {
      seed: 2,
    });
    const inline = new InlineHost(spec, DEFAULT_REGISTRY).run();
    const result = await lockstep(spec, "auto").run();
    expect(lines(result)).toEqual(lines(inline));
  });

  it("agrees with inline on every message fault, a malformed frame and an actor's exception", async () => {
    for (const [seed, perWorker] of [
      [1, 1],
      [2, 3],
    ] as const) {
      const spec = withEveryFault(faultySpec(300_000, seed, ["a", "b"]));
      const reference = new InlineHost(spec, fixtures);
      inject(reference.core);
      const inline = reference.run();
      const host = lockstep(spec, perWorker, "shared", FIXTURE_REGISTRY_MODULE);
      inject(host.core);
      const result = await host.run();
      const stats = inline.router;
      expect([stats.dropped, stats.duplicated, stats.reordered, stats.corrupted, stats.partitioned].every((n) => n > 0)).toBe(true);
      const error = inline.events.find((e) => e.ev === "error");
      expect(error).toMatchObject({ actor: "ponger-a", message: "Error: planted failure" });
      expect(error?.ev === "error" && error.stack).toMatch(/at FaultyPonger\.receive/);
      expect(inline.events.some((e) => e.ev === "reject" && e.actor === "ponger-b" && e.from === "tester")).toBe(true);
      expect(lines(result), `seed ${seed}`).toEqual(lines(inline));
      expect(result.historyHash).toBe(inline.historyHash);
    }
  });

  it("refuses, as inline does, every change to a message: by its sender after sending it and by its receiver", async () => {
    // Inline hands the message object over (sealed: deep-frozen); lockstep sends a frame and freezes what it decodes.
    const spec = testSpec({
      actors: [actor("meddler-a", "meddler", { peer: "meddler-b" }), actor("meddler-b", "meddler")],
      durationUs: 50_000,
    });
    const inline = new InlineHost(spec, fixtures).run();
    const result = await lockstep(spec, 1, "shared", FIXTURE_REGISTRY_MODULE).run();
    const seen = (run: RunResult) =>
      run.events.flatMap((e) => (e.ev === "obs" && e.o.type.startsWith("meddler.") ? [{ actor: e.actor, ...e.o }] : []));
    expect(seen(inline)).toEqual([
      { actor: "meddler-a", type: "meddler.after-send", result: "threw" },
      { actor: "meddler-b", type: "meddler.got", from: "meddler-a", payload: "original" },
      { actor: "meddler-b", type: "meddler.after-receive", result: "threw" },
    ]);
    expect(lines(result)).toEqual(lines(inline));
  });

  it("survives workers killed from outside, by process.exit and by running out of memory: recorded, restarted, the rest judged", async () => {
    const spec = faultySpec(400_000, 1, ["c", "d", "e"]);
    // A heap cap small enough for the "hog" ponger to hit it quickly (the actors need far less).
    const host = new LockstepHost(spec, { registryModule: FIXTURE_REGISTRY_MODULE, workerHeapMb: 48 });
    hosts.push(host);
    host.core.injectFrame(150_000, "tester", "ponger-d", encode({ type: "SimPing", seq: 999, payload: "exit" }));
    host.core.injectFrame(160_000, "tester", "ponger-e", encode({ type: "SimPing", seq: 999, payload: "hog" }));
    await host.start();
    await host.runUntil(100_000);
    await host.workerOf("ponger-c")?.worker.terminate(); // not through the host: an outside kill
    await host.runUntil(spec.durationUs);
    const result = await host.run(); // the rest of the run (none): snapshots, seals the history, closes
    const crashes = result.events.flatMap((e) => (e.ev === "life" && e.what === "crash" ? [[e.actor, e.detail]] : []));
    expect(crashes).toEqual([
      ["ponger-c", "worker exited with code 1"],
      ["ponger-d", "worker exited with code 3"],
      ["ponger-e", expect.stringMatching(/^worker died: ERR_WORKER_OUT_OF_MEMORY: .*memory limit/)],
    ]);
    // Restarted from the mirrored durable log 20 ms later (the restart policy), and answering again.
    for (const id of ["c", "d", "e"]) {
      expect(result.events.some((e) => e.ev === "life" && e.actor === `ponger-${id}` && e.what === "restart")).toBe(true);
      expect(pongs(result.events, `pinger-${id}`, 250_000), id).toBeGreaterThan(10);
    }
    // The pingers, in workers of their own, never stopped: each kept pinging through its ponger's death.
    for (const id of ["c", "d", "e"]) expect(result.actors[`pinger-${id}`]?.state).toBe("running");
    expect(judge(result, spec, ["actor-exceptions"])["actor-exceptions"]?.ok).toBe(true);
  });
});
