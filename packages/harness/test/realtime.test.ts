import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { encode } from "@kcsim/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE_REGISTRY_MODULE, registry as fixtures } from "../src/hosts/fixtures/fixture-registry.js";
import {
  DEFAULT_REGISTRY,
  type HistoryEvent,
  judge,
  loadScenarioFile,
  RealtimeHost,
  type ReplayReport,
  replayRecording,
  toSimulationSpec,
} from "../src/index.js";
import { faultySpec } from "./worker-fixtures.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "packages/harness/bundle/cli.js");
const kcsim = (...args: string[]) => {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", env: { ...process.env, INIT_CWD: root } });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
};

const hosts: RealtimeHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

const lifecycle = (events: readonly HistoryEvent[], actor: string) =>
  events.flatMap((e) => (e.ev === "life" && e.actor === actor ? [e.detail === null ? e.what : `${e.what}: ${e.detail}`] : []));
const pongsAfter = (events: readonly HistoryEvent[], pinger: string, t: number) =>
  events.filter((e) => e.ev === "obs" && e.actor === pinger && e.o.type === "ping.pong" && e.t > t).length;

function expectReproduced(report: ReplayReport, actors: number): void {
  expect(report.actors).toHaveLength(actors);
  for (const actor of report.actors) {
    expect(actor.firstDifference, actor.actor).toBeNull();
    expect(actor.received, actor.actor).toBeGreaterThan(0);
    expect([actor.reproduced, actor.resent]).toEqual([actor.received, actor.sent]);
  }
  expect(report.equal).toBe(true);
}

describe("realtime host", () => {
  it("runs scenarios/ping-pong.json on the scaled real clock, and its recording replays every actor's received messages", async () => {
    const scenario = loadScenarioFile(join(root, "scenarios/ping-pong.json"));
    const spec = toSimulationSpec(scenario, { seed: 1 });
    // 20 s of virtual time in 5 s. ponger-1 crashes at 8 s and restarts at 9 s in a warm spare worker over the
    // control plane; on a loaded machine those calls take up to a second or two of real time, so the restart
    // (recorded when the new worker has adopted the actor) must still land well before the end: 11 s of
    // virtual time are 2.75 s of real time here (at 0.06 they were 0.66 s, which a loaded machine missed).
    const host = new RealtimeHost(spec, { timeScale: 0.25 });
    hosts.push(host);
    const result = await host.run();
    expect(result.host).toBe("realtime");
    expect(lifecycle(result.events, "ponger-1")).toEqual(["start", "crash: nemesis", "restart"]);
    expect(lifecycle(result.events, "pinger-2")).toContain("pause");
    expect(result.router.breaks).toBeGreaterThan(0);
    expect(judge(result, spec, ["actor-exceptions"])["actor-exceptions"]?.ok).toBe(true);
    expectReproduced(replayRecording(result.recording, DEFAULT_REGISTRY), 4);

    // A crash that comes before the actor's worker reported its state (a loaded machine: its first batch has not
    // reached the main thread) records the carry of a fresh incarnation, marked unknownState: the replay has no
    // state to compare it with. The same carry unmarked is a difference. (ponger-1 draws no random numbers, so the
    // rest of its run replays either way.)
    const down = result.recording.entries.findIndex((e) => e.r === "down" && e.actor === "ponger-1");
    const up = result.recording.entries.findIndex((e, i) => i > down && e.r === "up" && e.actor === "ponger-1");
    expect([down, up].every((i) => i >= 0)).toBe(true);
    // Another carry at the crash, which the stand-in keeps until the restart hands it on.
    const reseeded = (unknownState: boolean) => ({
      ...result.recording,
      entries: result.recording.entries.map((e, i) => {
        if ((i !== down && i !== up) || (e.r !== "down" && e.r !== "up")) return e;
        const carry = { ...e.carry, rng: e.carry.rng.map((word) => word ^ 1) };
        return e.r === "down" && unknownState ? { ...e, carry, unknownState: true as const } : { ...e, carry };
      }),
    });
    expect(replayRecording(reseeded(false), DEFAULT_REGISTRY).actors.find((a) => a.actor === "ponger-1")?.firstDifference).toMatch(
      /at \d+ us its crash carried another state than the replay's/,
    );
    expectReproduced(replayRecording(reseeded(true), DEFAULT_REGISTRY), 4);

    // A forged frame in the recording is caught (the replayed sender never sent it)...
    const forged = encode({ type: "SimPong", seq: 1, payload: "forged" });
    const at = result.recording.entries.findIndex(
      (e) => e.r === "run" && e.e.k === "deliver" && e.e.from === "ponger-2" && e.e.type === "SimPong",
    );
    const entries = result.recording.entries.map((e, i) =>
      i === at && e.r === "run" && e.e.k === "deliver" ? { ...e, e: { ...e.e, frame: Buffer.from(forged).toString("base64") } } : e,
    );
    const tampered = replayRecording({ ...result.recording, entries }, DEFAULT_REGISTRY);
    expect(tampered.equal).toBe(false);
    expect(tampered.actors.find((a) => a.actor === "pinger-2")?.firstDifference).toMatch(
      /SimPong #\d+ from ponger-2 differs from the recorded message/,
    );
    // ...and the CLI replays the recording file.
    const dir = mkdtempSync(join(tmpdir(), "kcsim-realtime-"));
    writeFileSync(join(dir, "recording.jsonl"), host.recordingText());
    const replayed = kcsim("replay", dir, "--json");
    expect(replayed.code, replayed.stderr).toBe(0);
    expect((JSON.parse(replayed.stdout) as ReplayReport).equal).toBe(true);
    // Bad input: one line, exit code 2.
    writeFileSync(join(dir, "garbage.jsonl"), "{not json\n");
    const bad = kcsim("replay", join(dir, "garbage.jsonl"));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /^kcsim: replay: .*garbage\.jsonl:1: not a kcsim recording|^kcsim: replay: .*garbage\.jsonl:1: invalid JSON/,
    );
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  }, 180_000);

  it("survives an exception, a crash over the control plane, a worker killed from outside and a malformed frame", async () => {
    const spec = faultySpec(16_000_000, 1, ["a", "b", "c"]);
    // 16 s of virtual time in 4 s; restarts take a warm spare worker (two are kept ready). The faults are
    // placed at 1 s and 2 s by this thread, so on a loaded machine they land late, and each restart takes
    // up to a second or two of real time: each pair is judged after its own ponger's restart.
    const host = new RealtimeHost(
      { ...spec, restartPolicy: { mode: "restart", delayUs: 100_000 } },
      { timeScale: 0.25, registryModule: FIXTURE_REGISTRY_MODULE, spareWorkers: 2 },
    );
    hosts.push(host);
    host.core.injectFrame(500_000, "tester", "ponger-a", encode({ type: "SimPing", seq: 999, payload: "throw" }));
    host.core.injectFrame(300_000, "tester", "ponger-a", Uint8Array.from([0xc1, 0xc1]));
    const running = host.run();
    // At 1 s: crash ponger-b over the control plane, and kill ponger-c's worker from outside; at 2 s, restart ponger-b.
    await host.at(1_000_000);
    await host.control("ponger-b", { action: "crash" });
    await host.workerOf("ponger-c")?.worker.terminate();
    await host.at(2_000_000);
    await host.control("ponger-b", { action: "restart" });
    const snapshot = await host.snapshotOf("pinger-a");
    expect(snapshot?.state).toBe("running");
    const result = await running;

    const events = result.events;
    expect(events.find((e) => e.ev === "error")).toMatchObject({ actor: "ponger-a", message: "Error: planted failure" });
    expect(events.some((e) => e.ev === "reject" && e.actor === "ponger-a" && e.reason === "malformed")).toBe(true);
    expect(lifecycle(events, "ponger-a")).toEqual(["start", "crash: exception", "restart"]);
    expect(lifecycle(events, "ponger-b")).toEqual(["start", "crash: nemesis", "restart"]);
    expect(lifecycle(events, "ponger-c")).toEqual(["start", "crash: worker exited with code 1", "restart"]);
    // Everyone answers again after its ponger's restart; the checkers judge the run.
    for (const pair of ["a", "b", "c"]) {
      const restart = events.find((e) => e.ev === "life" && e.actor === `ponger-${pair}` && e.what === "restart");
      expect(pongsAfter(events, `pinger-${pair}`, restart?.t ?? 0), pair).toBeGreaterThan(0);
    }
    expect(judge(result, spec, ["actor-exceptions"])["actor-exceptions"]?.violations).toHaveLength(1);
    // Faults and all, the recording replays.
    expectReproduced(replayRecording(result.recording, fixtures), 6);
  }, 180_000);
});
