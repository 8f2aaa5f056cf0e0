import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

/** A hunt failure directory written with --history holds the run's own history: its SHA-256 is the hash hunt.json recorded. */
export function expectRecordedHistory(dir: string): void {
  const { historyHash } = JSON.parse(readFileSync(join(dir, "hunt.json"), "utf8")) as { historyHash: string };
  const sha = createHash("sha256")
    .update(readFileSync(join(dir, "history.jsonl")))
    .digest("hex");
  expect(sha, dir).toBe(historyHash);
}
