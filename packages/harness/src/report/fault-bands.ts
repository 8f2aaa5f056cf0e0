import type { Micros } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import type { DelaySpec, FaultPlan, MessageFault, PartitionFault } from "../router/fault-plan.js";
import type { FaultBand } from "./report-data.js";

interface Touched {
  readonly firstUs: Micros;
  lastUs: Micros;
  readonly fates: Record<string, number>;
}

const percent = (p: number) => `${Math.round(p * 10_000) / 100}%`;

function describeDelay(delay: DelaySpec): string {
  switch (delay.dist) {
    case "fixed":
      return `${delay.ms} ms`;
    case "uniform":
      return `${delay.minMs}-${delay.maxMs} ms`;
    case "normal":
      return `normal(${delay.meanMs} ms, sd ${delay.stddevMs} ms)`;
    case "exponential":
      return `exponential(mean ${delay.meanMs} ms)`;
    case "pareto":
      return `pareto(${delay.scaleMs} ms, shape ${delay.shape})`;
  }
}

/** A message fault in a few words: what it does, then to which messages. */
export function describeMessageFault(fault: MessageFault): string {
  const parts: string[] = [];
  if (fault.drop !== undefined) {
    parts.push(
      "probability" in fault.drop
        ? `drop ${percent(fault.drop.probability)}`
        : `burst loss (good->bad ${fault.drop.gilbertElliott.pGoodToBad}, bad->good ${fault.drop.gilbertElliott.pBadToGood}, ${percent(fault.drop.gilbertElliott.lossInBad)} lost in bad)`,
    );
  }
  if (fault.delay !== undefined) parts.push(`delay ${describeDelay(fault.delay)}`);
  if (fault.duplicate !== undefined) parts.push(`duplicate ${percent(fault.duplicate.probability)}`);
  if (fault.reorder !== undefined) parts.push(`reorder ${percent(fault.reorder.probability)} by ${describeDelay(fault.reorder.delay)}`);
  if (fault.bandwidth !== undefined) parts.push(`bandwidth ${fault.bandwidth.bytesPerSecond} B/s`);
  if (fault.corrupt !== undefined) parts.push(`corrupt ${percent(fault.corrupt.probability)} (${fault.corrupt.mode})`);
  if (fault.from !== undefined) parts.push(`from ${fault.from.join(", ")}`);
  if (fault.to !== undefined) parts.push(`to ${fault.to.join(", ")}`);
  if (fault.types !== undefined) parts.push(`types ${fault.types.join(", ")}`);
  return parts.join(" · ");
}

export function describePartition(partition: PartitionFault): string {
  const arrow = partition.direction === "two-way" ? "<->" : partition.direction === "a-to-b" ? "->" : "<-";
  return `${partition.a.join(", ")} ${arrow} ${partition.b.join(", ")} blocked`;
}

/**
 * The run's message faults and network partitions as bands over time:
 * the window the spec declares (when the run directory has the spec), and
 * how many messages each touched, by fate, counted from the history's sends
 * (each names the fault that dropped, delayed, duplicated, reordered or
 * corrupted it, or, on a connection, broke it or held it back). Without a spec, a band spans the first to the last
 * message its fault touched.
 */
export class FaultBands {
  readonly #touched = new Map<string, Touched>();

  accept(event: HistoryEvent): void {
    if (event.ev !== "send" || event.fault === undefined) return;
    // A connection's message a partition held back was delivered late, not altered: it counts apart.
    const fate = event.held === true ? "held" : event.fate;
    const touched = this.#touched.get(event.fault);
    if (touched === undefined) {
      this.#touched.set(event.fault, { firstUs: event.t, lastUs: event.t, fates: { [fate]: 1 } });
      return;
    }
    touched.lastUs = event.t;
    touched.fates[fate] = (touched.fates[fate] ?? 0) + 1;
  }

  finish(endUs: Micros, plan: Pick<FaultPlan, "messageFaults" | "partitions"> | null): FaultBand[] {
    const bands: FaultBand[] = [];
    const clip = (ms: number | undefined, fallback: Micros) => (ms === undefined ? fallback : Math.min(Math.max(ms * 1000, 0), endUs));
    const declared = new Set<string>();
    for (const fault of plan?.messageFaults ?? []) {
      declared.add(fault.name);
      bands.push({
        name: fault.name,
        kind: "message",
        declared: true,
        fromUs: clip(fault.startMs, 0),
        toUs: clip(fault.endMs, endUs),
        detail: describeMessageFault(fault),
        affected: this.#touched.get(fault.name)?.fates ?? {},
      });
    }
    for (const partition of plan?.partitions ?? []) {
      declared.add(partition.name);
      bands.push({
        name: partition.name,
        kind: "partition",
        declared: true,
        fromUs: clip(partition.startMs, 0),
        toUs: clip(partition.endMs, endUs),
        detail: describePartition(partition),
        affected: this.#touched.get(partition.name)?.fates ?? {},
      });
    }
    for (const [name, touched] of this.#touched) {
      if (declared.has(name)) continue;
      const partitioned = Object.keys(touched.fates).every((fate) => fate === "partitioned" || fate === "held");
      bands.push({
        name,
        kind: partitioned ? "partition" : "message",
        declared: false,
        fromUs: touched.firstUs,
        toUs: Math.max(touched.lastUs, touched.firstUs + 1),
        detail: partitioned
          ? "network partition (window inferred from the messages it blocked)"
          : "window inferred from the messages it touched",
        affected: touched.fates,
      });
    }
    return bands;
  }
}
