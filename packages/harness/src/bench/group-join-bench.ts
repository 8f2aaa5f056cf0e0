import { DEFAULT_REGISTRY } from "../actors/registry.js";
import { groupTopologies } from "../analysis/group-topology.js";
import { observationOf } from "../analysis/observations.js";
import { OwnershipTimeline } from "../analysis/ownership-timeline.js";
import type { HistoryEvent } from "../history/history-event.js";
import { InlineHost } from "../hosts/inline-host.js";
import { toSimulationSpec, validateScenario } from "../scenario/load-scenario.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";

/**
 * 1,000 KIP-848 members joining one group of 10,000 partitions (100 topics
 * of 100) in the inline host: the wall time the simulation takes and the
 * virtual time the group takes to reach STABLE with every partition owned.
 */
function joinScenario(members: number, topics: number, partitionsPerTopic: number) {
  const names = Array.from({ length: topics }, (_, i) => `t${String(i).padStart(3, "0")}`);
  return validateScenario(
    {
      name: `join-${members}x${topics * partitionsPerTopic}`,
      durationMs: 120_000,
      cluster: { coordinators: 1, topics: names.map((name) => ({ name, partitions: partitionsPerTopic })) },
      groups: [
        {
          groupId: "big",
          protocol: "consumer",
          members,
          subscription: names,
          staggerMs: 10,
          app: { processingMsPerRecord: 0, pollTimeoutMs: 1000 },
          source: { kind: "synthetic", recordsPerSecondPerPartition: 0 },
        },
      ],
    },
    "bench",
  );
}

/** The first time every member owns partitions, none is unowned and the coordinator's group is STABLE. */
function timeToFullyStable(events: readonly HistoryEvent[], members: readonly string[], partitions: readonly string[]): number | null {
  const timeline = new OwnershipTimeline();
  let stable = false;
  for (const event of events) {
    timeline.apply(event);
    const group = observationOf(event, "gc.group");
    if (group !== undefined) stable = group.state === "STABLE" && group.groupEpoch === group.assignmentEpoch;
    if (stable && timeline.unownedCount(partitions) === 0 && members.every((m) => timeline.ownedBy(m).size > 0)) return event.t;
  }
  return null;
}

export const groupJoinBench: BenchSuite = {
  name: "group-join",
  description: "1,000 members joining a 10,000-partition KIP-848 group in the inline host",
  async run(): Promise<BenchRow[]> {
    const scenario = joinScenario(1000, 100, 100);
    const spec = toSimulationSpec(scenario);
    const host = new InlineHost(spec, DEFAULT_REGISTRY);
    const cpuBefore = process.cpuUsage();
    const result = host.run();
    const cpu = process.cpuUsage(cpuBefore);
    const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    const topology = groupTopologies(spec)[0];
    const stableAt = topology === undefined ? null : timeToFullyStable(result.events, topology.members, topology.partitions);
    return [
      {
        suite: this.name,
        case: "1,000 members x 10,000 partitions: wall time",
        value: Math.round(result.wallMs),
        unit: "ms",
        note: `${spec.durationUs / 1e6} s simulated, ${result.eventsProcessed} events, ${result.router.messages} messages; ${cpuMs.toLocaleString("en-US")} ms CPU (user + system; wall is longer when the cores are shared)`,
      },
      {
        suite: this.name,
        case: "1,000 members x 10,000 partitions: virtual time to STABLE",
        value: stableAt === null ? -1 : Math.round(stableAt / 1000),
        unit: "ms",
        note: "members start 10 ms apart (the last at 9,990 ms); STABLE = every member owns its share, none unowned",
      },
    ];
  },
};
