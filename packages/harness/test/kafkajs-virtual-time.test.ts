import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type HistoryEvent, loadScenarioFile, runScenario, type ScenarioFile } from "../src/index.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const SCENARIO = fileURLToPath(new URL("../../../scenarios/kafkajs-chaos.json", import.meta.url));

/** kafkajs-chaos cut at 35 s: the member crash, the partition, the stuck application and the coordinator failover are in. */
function shortChaos(): ScenarioFile {
  return { ...loadScenarioFile(SCENARIO), durationMs: 35_000 };
}

function cliRun(file: string): Promise<{ historyHash: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, "run", file, "--json"], { maxBuffer: 16 << 20 }, (error, stdout) => {
      // Exit code 1 is a checker's verdict, not a failure to run.
      if (error !== null && error.code !== 1) reject(error);
      else resolve(JSON.parse(stdout) as { historyHash: string });
    });
  });
}

const observations = (events: readonly HistoryEvent[], type: string) =>
  events.filter((e): e is Extract<HistoryEvent, { ev: "obs" }> => e.ev === "obs" && e.o.type === type);

describe("KafkaJS 2.2.4 consumers in virtual time", () => {
  const dir = mkdtempSync(join(tmpdir(), "kcsim-kafkajs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // Seed 1 of the short chaos, run once for both tests.
  let firstRun: ReturnType<typeof runScenario> | null = null;
  const seed1 = () => {
    firstRun ??= runScenario(shortChaos(), { host: "inline", seed: 1 });
    return firstRun;
  };

  it("gives the same history hash twice in one process and in another process", async () => {
    const realSetTimeout = globalThis.setTimeout;
    const first = await seed1();
    const second = await runScenario(shortChaos(), { host: "inline", seed: 1 });
    expect(second.summary.historyHash).toBe(first.summary.historyHash);
    // The dispatching globals are gone once the runs are over.
    expect(globalThis.setTimeout).toBe(realSetTimeout);

    const file = join(dir, "kafkajs-chaos-35s.json");
    writeFileSync(file, JSON.stringify(shortChaos()));
    expect((await cliRun(file)).historyHash).toBe(first.summary.historyHash);

    // KafkaJS's own code ran: its three consumers joined the group, consumed, committed, and one was crashed and came back.
    const events = first.result.events;
    const joins = new Set(observations(events, "kafkajs.group-join").map((e) => e.actor));
    expect([...joins].sort()).toEqual(["member-1", "member-2", "member-3"]);
    expect(observations(events, "member.records").length).toBeGreaterThan(100);
    expect(observations(events, "member.commit").some((e) => e.o.result === "NONE")).toBe(true);
    expect(events.some((e) => e.ev === "life" && e.actor === "member-3" && e.what === "restart")).toBe(true);
  }, 240_000);

  it("finds KafkaJS handing a fenced member's old partitions to its application after a failed rejoin (seed 1)", async () => {
    const { summary, result } = await seed1();
    // member-2 was cut off its coordinator past its session (fenced, its partitions moved to member-1); its rejoin
    // failed when the coordinator crashed, and KafkaJS's runner went back to fetching its previous assignment.
    const check = summary.checks["contiguous-offsets"];
    expect(check?.ok).toBe(false);
    const fenced = check?.violations.find((v) => v.message.startsWith("member-2 "));
    expect(fenced?.message).toMatch(/^member-2 was handed records of orders-\d, which it did not own$/);
    const removed = observations(result.events, "gc.member-removed").find((e) => String(e.o.memberId).startsWith("member-2-"));
    expect(removed?.o.reason).toBe("session-timeout");
    expect(removed?.t).toBeLessThan(fenced?.t ?? 0);
    expect(readFileSync(SCENARIO, "utf8")).toContain('"client": "kafkajs"');
  }, 120_000);
});
