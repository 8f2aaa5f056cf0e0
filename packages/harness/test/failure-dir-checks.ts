import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { History, type HistoryEvent, type HistoryHeader } from "../src/index.js";

/**
 * A hunt failure directory written with --history holds the run's own
 * history: its lines, recorded again into a history (the binary records
 * the hash is taken over), give the hash hunt.json recorded.
 */
export function expectRecordedHistory(dir: string): void {
  const { historyHash } = JSON.parse(readFileSync(join(dir, "hunt.json"), "utf8")) as { historyHash: string };
  const lines = readFileSync(join(dir, "history.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "");
  const history = new History(JSON.parse(lines[0] as string) as HistoryHeader, { keepEvents: false });
  for (const line of lines.slice(1)) history.record(JSON.parse(line) as HistoryEvent);
  expect(history.finish(), dir).toBe(historyHash);
}
