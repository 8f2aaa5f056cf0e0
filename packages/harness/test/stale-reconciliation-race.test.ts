import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "packages/harness/dist/cli/main.js");

interface Summary {
  readonly historyHash: string;
  readonly checks: Record<string, { ok: boolean; violations: { message: string }[] }>;
}

function run(...args: string[]): Summary {
  const out = spawnSync(process.execPath, [cli, "run", "scenarios/chaos-consumer.json", "--seed", "41", "--json", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, INIT_CWD: root },
  });
  return JSON.parse(out.stdout) as Summary;
}

/**
 * The KIP-848 client race the chaos-consumer hunt found (README, "What kcsim
 * found"): in seed 41 member-8's reconciliation finishes after its coordinator
 * gave orders-33 to member-1, and installs it anyway, as Kafka's client does.
 */
describe("chaos-consumer seed 41: the stale-reconciliation race", () => {
  it("two members own a partition at once with Kafka's client; none with kcsim.reconciliation.skip.released.partitions", () => {
    const kafka = run();
    expect(kafka.checks["single-owner"]?.ok).toBe(false);
    expect(kafka.checks["single-owner"]?.violations[0]?.message).toBe("orders-33 owned by member-1 and member-8 at once");
    const guarded = run("--consumer-config", "kcsim.reconciliation.skip.released.partitions=true");
    expect(guarded.historyHash).not.toBe(kafka.historyHash);
    const failing = Object.entries(guarded.checks).filter(([, check]) => !check.ok);
    expect(failing).toEqual([]);
  });
});
