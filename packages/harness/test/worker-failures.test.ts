import { encode } from "@kcsim/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { GROUP_CHECKERS } from "../src/checkers/registry.js";
import { FIXTURE_REGISTRY_MODULE, registry as fixtures } from "../src/hosts/fixtures/fixture-registry.js";
import {
  type HistoryEvent,
  InlineHost,
  judge,
  LockstepHost,
  RealtimeHost,
  replayRecording,
  type SimulationCore,
  type SimulationSpec,
  toSimulationSpec,
  validateScenario,
} from "../src/index.js";

/**
 * Issue 6: a thrown exception in a member, a terminated worker and a
 * malformed frame each leave a run of a real consumer group alive with a
 * clear record, and the group checkers still judge the rest. Both worker
 * hosts, one actor per worker.
 */
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((host) => host.close()));
});

/** A 4-member KIP-848 group; member-1 is the `faulty-consumer` fixture (the consumer member, plus one planted throw). */
function groupSpec(durationMs = 90_000): SimulationSpec {
  const scenario = validateScenario(
    {
      name: "member-failures",
      description: "a consumer group whose members fail in every way a worker can",
      seed: 1,
      durationMs,
      cluster: { coordinators: 1, topics: [{ name: "T1", partitions: 12 }] },
      groups: [
        {
          groupId: "g1",
          protocol: "consumer",
          members: 4,
          subscription: ["T1"],
          staggerMs: 100,
          app: { processingMsPerRecord: 1 },
          source: { kind: "synthetic", recordsPerSecondPerPartition: 10 },
        },
      ],
    },
    "member-failures",
  );
  const spec = toSimulationSpec(scenario, { seed: 1 });
  expect(spec.restartPolicy).toEqual({ mode: "restart", delayUs: 1_000_000 });
  return { ...spec, actors: spec.actors.map((a) => (a.id === "member-1" ? { ...a, kind: "faulty-consumer" } : a)) };
}

/** At 10 s member-1 throws (a planted bug); at 15 s member-2 gets bytes that are no message. */
function plant(core: SimulationCore): void {
  core.injectFrame(10_000_000, "tester", "member-1", encode({ type: "SimPing", seq: 1, payload: "throw" }));
  core.injectFrame(15_000_000, "tester", "member-2", Uint8Array.from([0xc1, 0xc1, 0xc1]));
}

const lifecycle = (events: readonly HistoryEvent[], actor: string) =>
  events.flatMap((e) => (e.ev === "life" && e.actor === actor ? [e.detail === null ? e.what : `${e.what}: ${e.detail}`] : []));

/** The records each failure left, and the group checkers' verdicts on the rest. */
function expectRecordedAndJudged(events: readonly HistoryEvent[], spec: SimulationSpec): void {
  const lastStretch = spec.durationUs - 20_000_000;
  const error = events.find((e) => e.ev === "error");
  expect(error).toMatchObject({ actor: "member-1", during: expect.any(String), message: "Error: planted member failure" });
  expect(error?.ev === "error" && error.stack).toMatch(/at FaultyMember\.receive/);
  expect(lifecycle(events, "member-1")).toEqual(["start", "crash: exception", "restart"]);
  expect(events.find((e) => e.ev === "reject")).toMatchObject({ actor: "member-2", from: "tester", reason: "malformed" });
  expect(lifecycle(events, "member-2")).toEqual(["start"]);
  expect(lifecycle(events, "member-3")).toEqual(["start", "crash: worker exited with code 1", "restart"]);
  // The group carried on: every member, the restarted ones too, processed records in the last 20 s.
  for (const member of ["member-1", "member-2", "member-3", "member-4"])
    expect(
      events.some((e) => e.ev === "obs" && e.actor === member && e.o.type === "member.records" && e.t > lastStretch),
      member,
    ).toBe(true);
  // Every group checker gave a verdict: the exception is the one violation, everything else holds.
  const checks = judge({ events } as Parameters<typeof judge>[0], spec, GROUP_CHECKERS);
  expect(Object.keys(checks)).toEqual([...GROUP_CHECKERS]);
  expect(checks["actor-exceptions"]?.ok).toBe(false);
  expect(checks["actor-exceptions"]?.violations.map((v) => v.message)).toEqual([
    expect.stringMatching(/^member-1 threw during .*: Error: planted member failure$/),
  ]);
  const failed = Object.entries(checks).flatMap(([name, check]) => (check.ok ? [] : [name]));
  expect(failed).toEqual(["actor-exceptions"]);
}

describe("failures inside a consumer group's workers", () => {
  it("lockstep: a member's exception, a worker killed from outside and a malformed frame are recorded; the group is judged", async () => {
    const spec = groupSpec();
    const host = new LockstepHost(spec, { actorsPerWorker: 1, registryModule: FIXTURE_REGISTRY_MODULE });
    closers.push(host);
    plant(host.core);
    await host.start();
    await host.runUntil(20_000_000);
    await host.workerOf("member-3")?.worker.terminate(); // not through the host: an outside kill
    await host.runUntil(spec.durationUs);
    const result = await host.run();
    expectRecordedAndJudged(result.events, spec);
    for (const id of ["member-1", "member-3"]) expect(result.actors[id]?.state, id).toBe("running");
  }, 180_000);

  it("lockstep gives the inline history, byte for byte, for a member's exception and a malformed frame", async () => {
    const spec = groupSpec();
    const reference = new InlineHost(spec, fixtures);
    plant(reference.core);
    const inline = reference.run();
    const host = new LockstepHost(spec, { actorsPerWorker: "auto", registryModule: FIXTURE_REGISTRY_MODULE });
    closers.push(host);
    plant(host.core);
    const result = await host.run();
    expect(inline.events.some((e) => e.ev === "error" && e.actor === "member-1")).toBe(true);
    expect(inline.events.some((e) => e.ev === "reject" && e.actor === "member-2")).toBe(true);
    expect(result.events.map((e) => JSON.stringify(e))).toEqual(inline.events.map((e) => JSON.stringify(e)));
    expect(result.historyHash).toBe(inline.historyHash);
  }, 180_000);

  it("realtime: the same three failures on the real clock are recorded, judged, and the recording still replays", async () => {
    // Time scale 0.1: a stall of the loaded machine (a second or two of real time) stays well inside the
    // members' 45 s session (4.5 s real), so the group checkers judge the failures, not the load. The run is
    // as long as the protocol needs after the last failure, whatever the load: the killed member-3's old
    // member id (it restarts under a new one) holds its partitions until its session expires, 45 s after its
    // last heartbeat before the kill at 20 s (which a loaded machine reaches a few seconds late), so the group
    // converges near 75 s; a 60 s run converged only if the group had settled before member-1 threw at 10 s
    // (1 s of real time after the start), which a loaded machine misses. 120 s of virtual time take 12 s.
    const spec = groupSpec(120_000);
    const host = new RealtimeHost(spec, { timeScale: 0.1, actorsPerWorker: 1, registryModule: FIXTURE_REGISTRY_MODULE });
    closers.push(host);
    plant(host.core);
    const running = host.run();
    await host.at(20_000_000);
    await host.workerOf("member-3")?.worker.terminate();
    const result = await running;
    expectRecordedAndJudged(result.events, spec);
    const report = replayRecording(result.recording, fixtures);
    expect(report.actors.map((a) => a.firstDifference)).toEqual(report.actors.map(() => null));
    expect(report.equal).toBe(true);
  }, 180_000);
});
