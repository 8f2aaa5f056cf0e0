import type { RunSummary } from "../run/run-scenario.js";

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));

/** The human-readable report of one run; `written`: where --out put the run directory and its report, as the user types it. */
export function formatSummary(
  summary: RunSummary,
  descriptions: ReadonlyMap<string, string>,
  written: { readonly dir: string; readonly report: string } | null = null,
): string {
  const m = summary.metrics;
  const lines = [
    `kcsim run ${summary.scenario}  seed ${summary.seed}  host ${summary.host}  network ${m.network}`,
    `  virtual ${m.virtualMs} ms in ${m.wallMs} ms wall (${m.speedup}x)   events ${m.eventsProcessed}   history ${m.historyEvents} lines`,
    `  history hash ${summary.historyHash}`,
    ...(summary.interruptedAtMs !== undefined ? [`  INTERRUPTED at ${summary.interruptedAtMs} ms of virtual time: judged up to then`] : []),
    m.network === "connection"
      ? `  messages ${m.messages}: delivered ${m.delivered} (${m.held} held back by a partition), lost with a broken connection ${m.broken}, cut off ${m.partitioned}, corrupted ${m.corrupted}` +
        `\n  connections: ${m.connects} opened, ${m.breaks} broken by a fault, ${m.timeouts} closed by a timeout`
      : `  messages ${m.messages}: delivered ${m.delivered}, dropped ${m.dropped}, partitioned ${m.partitioned}, duplicated ${m.duplicated}, reordered ${m.reordered}, corrupted ${m.corrupted}`,
    `  frames rejected ${m.rejectedFrames}, lost at a down actor ${m.lostMessages}, actor errors ${m.actorErrors}`,
  ];
  for (const g of m.groups) {
    lines.push(
      `  group ${g.groupId}: ${g.members} members, ${g.partitions} partitions, settled first at ${g.firstSettledMs ?? "never"} ms; ` +
        `${g.rebalances} rebalances, time to stable max ${g.maxTimeToStableMs} ms; ` +
        `peak unowned ${g.peakUnowned}, ${g.unownedPartitionSeconds} partition-s unowned, ${g.pausedMembers} members paused; ` +
        `${g.heartbeatsPerMemberPerMinute} heartbeats/member/min`,
    );
  }
  lines.push("  checks");
  // The rule column starts after the longest checker name, so it stays aligned whatever the names.
  const width = Math.max(22, ...Object.keys(summary.checks).map((name) => name.length));
  for (const [name, check] of Object.entries(summary.checks)) {
    lines.push(
      `    ${check.notJudged !== undefined ? "n/a " : check.ok ? "ok  " : "FAIL"}  ${pad(name, width)} ${descriptions.get(name) ?? ""}`,
    );
    if (check.notJudged !== undefined) lines.push(`          not judged: ${check.notJudged}`);
    for (const v of check.violations.slice(0, 5)) lines.push(`          at ${v.t} us: ${v.message}`);
  }
  if (summary.replay !== "") lines.push(`  replay: ${summary.replay}`);
  if (written !== null) lines.push(`  run directory: ${written.dir} (history.jsonl, summary.json, spec.json); report: ${written.report}`);
  return `${lines.join("\n")}\n`;
}
