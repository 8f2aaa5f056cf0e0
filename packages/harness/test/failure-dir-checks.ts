import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { History, type HistoryEvent, type HistoryHeader } from "../src/index.js";

/**
 * The history hash of a history.jsonl's text: its lines recorded again into
 * a history (the hash is over the header line and the binary records, not
 * over the JSON text).
 */
export function historyHashOfLines(text: string): string {
  const lines = text.split("\n").filter((line) => line !== "");
  const history = new History(JSON.parse(lines[0] as string) as HistoryHeader, { keepEvents: false });
  for (const line of lines.slice(1)) history.record(JSON.parse(line) as HistoryEvent);
  return history.finish();
}

/** A hunt failure directory written with --history holds the run's own history: it gives the hash hunt.json recorded. */
export function expectRecordedHistory(dir: string): void {
  const { historyHash } = JSON.parse(readFileSync(join(dir, "hunt.json"), "utf8")) as { historyHash: string };
  expect(historyHashOfLines(readFileSync(join(dir, "history.jsonl"), "utf8")), dir).toBe(historyHash);
}
