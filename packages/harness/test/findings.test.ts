import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kcsimRun } from "../src/bench/kcsim-process.js";
import type { HistoryEvent } from "../src/history/history-event.js";
import { EMPTY_SIGNATURE, type FailureSignature, signatureOf } from "../src/hunt/failure-signature.js";
import { formatFindings, groupFindings } from "../src/hunt/findings.js";
import type { HuntRunResult } from "../src/hunt/hunt-task.js";
import { expectRecordedHistory } from "./failure-dir-checks.js";
import { actor, testSpec } from "./helpers.js";

const spec = testSpec({
  actors: [
    actor("coordinator-0", "group-coordinator"),
    actor("member-1", "consumer"),
    actor("member-2", "consumer"),
    actor("broker-0", "broker"),
  ],
});

const history: HistoryEvent[] = [
  { t: 1, ev: "obs", actor: "coordinator-0", o: { type: "gc.member", groupId: "g" } as never },
  { t: 2, ev: "send", from: "member-1", to: "coordinator-0", type: "ConsumerGroupHeartbeatRequest", bytes: 90, fate: "deliver", at: [3] },
  { t: 3, ev: "obs", actor: "member-2", o: { type: "member.owned", groupId: "g" } as never },
  { t: 4, ev: "life", actor: "broker-0", what: "crash", detail: null },
  { t: 5, ev: "obs", actor: "member-1", o: { type: "member.owned", groupId: "g" } as never },
];

describe("failure signatures", () => {
  it("are the kinds of the events a violation cites and the roles of the actors in them, sorted and distinct", () => {
    expect(signatureOf({ t: 1, message: "x", events: [0, 1, 2, 4] }, history, spec)).toEqual({
      events: ["gc.member", "member.owned", "send ConsumerGroupHeartbeatRequest"],
      roles: ["consumer", "group-coordinator"],
    });
    expect(signatureOf({ t: 4, message: "x", events: [3] }, history, spec)).toEqual({ events: ["life crash"], roles: ["broker"] });
  });

  it("drop what changes from seed to seed: which member, when, at what epoch", () => {
    const member2 = signatureOf({ t: 3, message: "member-2 at epoch 7", events: [2] }, history, spec);
    const member1 = signatureOf({ t: 5, message: "member-1 at epoch 3", events: [4] }, history, spec);
    expect(member1).toEqual(member2);
  });

  it("are empty for a violation that cites no event, or no violation", () => {
    expect(signatureOf({ t: 9, message: "did not converge", events: [] }, history, spec)).toEqual(EMPTY_SIGNATURE);
    expect(signatureOf(undefined, history, spec)).toEqual(EMPTY_SIGNATURE);
  });
});

function failing(seed: number, ...failures: [string, FailureSignature][]): HuntRunResult {
  return {
    seed,
    historyHash: `hash-${seed}`,
    failures: failures.map(([check, signature]) => ({ check, t: seed, message: `${check} at seed ${seed}`, signature })),
    parameters: {},
    scenario: { name: "s", durationMs: 1 } as HuntRunResult["scenario"],
    virtualMs: 1,
    wallMs: 1,
  };
}

describe("findings", () => {
  const race: FailureSignature = { events: ["member.owned"], roles: ["consumer"] };
  const fenced: FailureSignature = { events: ["gc.member"], roles: ["group-coordinator"] };

  it("gather fifteen seeds of one race into one finding with fifteen seeds", () => {
    const seeds = [41, 152, 193, 248, 334, 351, 397, 411, 439, 440, 583, 594, 723, 925, 927];
    const findings = groupFindings([...seeds].reverse().map((seed) => failing(seed, ["single-owner", race])));
    expect(findings).toEqual([
      {
        check: "single-owner",
        events: ["member.owned"],
        roles: ["consumer"],
        seeds,
        example: { seed: 41, message: "single-owner at seed 41" },
      },
    ]);
  });

  it("keep apart what differs in checker, events or roles; a seed failing two checkers counts in both; the largest first", () => {
    const findings = groupFindings([
      failing(5, ["single-owner", fenced], ["committed-offsets-monotonic", fenced]),
      failing(2, ["single-owner", race]),
      failing(7, ["single-owner", fenced]),
      failing(9, ["run-error", EMPTY_SIGNATURE]),
    ]);
    expect(findings.map((f) => [f.check, f.roles, f.seeds])).toEqual([
      ["single-owner", ["group-coordinator"], [5, 7]],
      ["single-owner", ["consumer"], [2]],
      ["committed-offsets-monotonic", ["group-coordinator"], [5]],
      ["run-error", [], [9]],
    ]);
    expect(formatFindings(findings)).toBe(
      [
        "4 findings by signature (checker; violating events; actor roles):",
        "  single-owner; gc.member; group-coordinator: 2 seeds (5, 7)",
        "  single-owner; member.owned; consumer: 1 seed (2)",
        "  committed-offsets-monotonic; gc.member; group-coordinator: 1 seed (5)",
        "  run-error; -; -: 1 seed (9)",
        "",
      ].join("\n"),
    );
    expect(formatFindings([])).toBe("");
  });

  it("list at most 20 seeds a finding in the text summary", () => {
    const text = formatFindings(groupFindings(Array.from({ length: 23 }, (_, i) => failing(i + 1, ["single-owner", race]))));
    expect(text).toContain(": 23 seeds (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, ... 3 more)\n");
  });

  it("close the summary of a local hunt and come with --json, the summary line as before (and --history keeps histories)", async () => {
    const args = ["hunt", "packages/harness/test/fixtures/fenced-pair.json", "--bug", "keep-partitions-after-fenced", "--seeds", "1..24"];
    const out = mkdtempSync(join(tmpdir(), "kcsim-findings-"));
    const [text, json] = await Promise.all([
      kcsimRun(...args, "--keep-going", "--workers", "1", "--out", join(out, "text")),
      kcsimRun(...args, "--keep-going", "--workers", "1", "--json", "--history", "--out", join(out, "json")),
    ]);
    expect(text.code).toBe(1);
    const failed = [...text.stdout.matchAll(/^FAIL seed (\d+)$/gm)].map((m) => Number(m[1]));
    expect(text.stdout).toMatch(
      new RegExp(
        `^hunt fenced-pair: 24 runs of seeds 1\\.\\.24, ${failed.length} failing, [\\d.]+ s on 1 worker \\(\\d+x real time\\)\\n\\d+ findings? by signature`,
        "m",
      ),
    );
    const report = JSON.parse(json.stdout) as {
      findings: { check: string; events: string[]; roles: string[]; seeds: number[]; count: number }[];
    };
    // Every failing seed is in a finding, and each finding's line is in the text summary.
    expect([...new Set(report.findings.flatMap((f) => f.seeds))].sort((a, b) => a - b)).toEqual(failed.sort((a, b) => a - b));
    for (const f of report.findings) {
      expect(f.count).toBe(f.seeds.length);
      expect(text.stdout).toContain(`  ${f.check}; ${f.events.join(", ")}; ${f.roles.join(", ")}: ${f.count} seed`);
    }
    // --history: each failure directory holds the run's history, whose SHA-256 is the recorded hash; without it, none.
    for (const seed of failed) {
      expectRecordedHistory(join(out, "json", `seed-${seed}`));
      expect(existsSync(join(out, "text", `seed-${seed}`, "history.jsonl"))).toBe(false);
    }
  }, 120_000);
});
