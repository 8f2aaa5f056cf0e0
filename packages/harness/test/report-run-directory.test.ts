import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { historyLineProblem, RunDirectoryError, readRunDirectory, upgradedHistoryLine } from "../src/report/run-directory.js";
import { reportRunDirectory } from "../src/report/write-report.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "packages/harness/bundle/cli.js");

const HEADER = JSON.stringify({ kcsim: "history", format: 1, seed: 3, scenario: "tiny", versions: { kcsim: "0", protocol: "1" } });
const LINES = [
  HEADER,
  JSON.stringify({ t: 0, ev: "life", actor: "m1", what: "start", detail: null }),
  JSON.stringify({
    t: 1000,
    ev: "obs",
    actor: "m1",
    o: { type: "member.owned", groupId: "g", memberId: "id1", memberEpoch: 1, owned: { T: [0, 1] }, cause: "assigned" },
  }),
  JSON.stringify({ t: 5000, ev: "send", from: "m1", to: "c", type: "X", bytes: 1, fate: "drop", at: [], fault: "loss" }),
];

/** What reading `dir` throws (null if it reads). */
const readError = (dir: string): Promise<unknown> =>
  readRunDirectory(dir).then(
    () => null,
    (e: unknown) => e,
  );

/** Reading a run directory whose history ends with `line` fails on it (line 5) with `message`. */
async function expectMalformed(line: object, message: RegExp): Promise<void> {
  const error = await readError(runDir([...LINES, JSON.stringify(line)]));
  expect(error).toBeInstanceOf(RunDirectoryError);
  expect((error as Error).message).toMatch(message);
}

function runDir(lines: readonly string[] = LINES, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "kcsim-report-"));
  writeFileSync(join(dir, "history.jsonl"), `${lines.join("\n")}\n`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("kcsim report: reading a run directory", () => {
  it("reads a history-only directory and writes a self-contained report.html", async () => {
    const dir = runDir(LINES, { "command.txt": "pnpm kcsim run tiny.json --seed 3\n" });
    const written = await reportRunDirectory(dir);
    expect(written.path).toBe(join(dir, "report.html"));
    const html = readFileSync(written.path, "utf8");
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(written.data.run).toMatchObject({ scenario: "tiny", seed: 3, historyEvents: 3, replay: "pnpm kcsim run tiny.json --seed 3" });
    expect(written.data.ownership.map((r) => r.intervals.length)).toEqual([1, 1]);
    // Nothing is fetched: no external script, stylesheet, font or image.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).toContain("default-src 'none'");
  });

  it("rejects a missing directory, one without history.jsonl, a bad header, a malformed line and a broken summary", async () => {
    const empty = mkdtempSync(join(tmpdir(), "kcsim-report-"));
    const cases: [string, RegExp][] = [
      [join(empty, "nope"), /nope: no such directory$/],
      [empty, /has no history\.jsonl/],
      [join(runDir(), "history.jsonl"), /history\.jsonl: not a directory/],
      [runDir([JSON.stringify({ t: 0, ev: "life" }), ...LINES.slice(1)]), /history\.jsonl:1: not a kcsim history/],
      [runDir([...LINES.slice(0, 2), "{not json", ...LINES.slice(2)]), /history\.jsonl:3: malformed history line \(/],
      [
        runDir([...LINES, JSON.stringify({ t: 9, ev: "obs", actor: "m1" })]),
        /history\.jsonl:5: malformed history line \(an observation needs actor and o\.type\)/,
      ],
      [
        runDir([...LINES, JSON.stringify({ t: 9, ev: "obs", actor: "client:app", o: { type: "member.records-dropped", memberId: "m" } })]),
        /history\.jsonl:5: malformed history line \(member\.records-dropped needs ranges \[\{topic, partition, firstOffset, lastOffset, count\}\]\)/,
      ],
      [runDir(LINES, { "summary.json": "{" }), /summary\.json: invalid JSON/],
      [runDir(LINES, { "summary.json": JSON.stringify({ checks: { x: { ok: "yes" } } }) }), /summary\.json: checks: expected/],
      [runDir(LINES, { "spec.json": JSON.stringify({ durationUs: 1 }) }), /spec\.json: not a simulation spec/],
    ];
    for (const [dir, message] of cases) {
      const error = await readError(dir);
      expect(error, dir).toBeInstanceOf(RunDirectoryError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("reads an older history's per-partition gc.offset-commit in today's shape (a commit's partitions together)", async () => {
    const old = {
      type: "gc.offset-commit",
      groupId: "g",
      memberId: "id1",
      epoch: 1,
      topic: "T",
      partition: 1,
      offset: 7,
      errorCode: 0,
      transactional: false,
    };
    const line = { t: 2000, ev: "obs", actor: "c", o: old };
    expect(upgradedHistoryLine(line)).toEqual({
      ...line,
      o: {
        type: "gc.offset-commit",
        groupId: "g",
        memberId: "id1",
        epoch: 1,
        transactional: false,
        topics: [{ topic: "T", partitions: [1], offsets: [7], errorCodes: [0] }],
      },
    });
    expect(historyLineProblem(upgradedHistoryLine(line))).toBeNull();
    await expect(readRunDirectory(runDir([...LINES, JSON.stringify(line)]))).resolves.toBeDefined();
    // Today's shape must hold one offset and one answer per partition.
    const short = {
      ...line,
      o: {
        ...(upgradedHistoryLine(line) as { o: object }).o,
        topics: [{ topic: "T", partitions: [1, 2], offsets: [7], errorCodes: [0, 0] }],
      },
    };
    await expectMalformed(short, /history\.jsonl:5: malformed history line \(gc\.offset-commit needs groupId, memberId, epoch and topics/);
  });

  it("reads an older history's member.commit (offsets by topic, then partition) as a column pair per topic", async () => {
    const old = {
      type: "member.commit",
      groupId: "g",
      memberId: "id1",
      memberEpoch: 3,
      kind: "auto",
      offsets: { T: { "0": 7, "2": 9 }, U: { "1": 4 } },
      result: "NONE",
    };
    const line = { t: 2000, ev: "obs", actor: "member-1", o: old };
    expect(upgradedHistoryLine(line)).toEqual({
      ...line,
      o: {
        type: "member.commit",
        groupId: "g",
        memberId: "id1",
        memberEpoch: 3,
        kind: "auto",
        result: "NONE",
        topics: [
          { topic: "T", partitions: [0, 2], offsets: [7, 9] },
          { topic: "U", partitions: [1], offsets: [4] },
        ],
      },
    });
    await expect(readRunDirectory(runDir([...LINES, JSON.stringify(line)]))).resolves.toBeDefined();
    // Today's shape must hold one offset per partition.
    const short = { ...line, o: { ...old, offsets: undefined, topics: [{ topic: "T", partitions: [0, 2], offsets: [7] }] } };
    await expectMalformed(short, /history\.jsonl:5: malformed history line \(member\.commit needs memberId and topics/);
  });

  it("answers bad input on the command line with one line and exit code 2", () => {
    const malformed = runDir([HEADER, "]"]);
    for (const args of [["report"], ["report", "/no/such/run"], ["report", malformed]]) {
      const out = spawnSync(process.execPath, [cli, ...args], { cwd: root, encoding: "utf8", env: { ...process.env, INIT_CWD: root } });
      expect(out.status, args.join(" ")).toBe(2);
      expect(out.stdout).toBe("");
      expect(out.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(out.stderr).toMatch(/^kcsim: report: /);
    }
    const ok = spawnSync(process.execPath, [cli, "report", runDir()], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, INIT_CWD: root },
    });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/^wrote .*report\.html \(\d+ KiB\)\n$/);
  });
});
