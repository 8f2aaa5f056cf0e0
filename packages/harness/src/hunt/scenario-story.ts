import type { MessageFaultSpec, NemesisStepSpec, PartitionSpec, ScenarioFile } from "../scenario/scenario-schema.js";

/**
 * What happens to a scenario's system, one line per fault, partition and
 * nemesis step, in time order: what a shrunk failure has left, said the
 * way a bug report would (`kcsim shrink` prints it under the failure).
 */
export function scenarioStory(scenario: ScenarioFile): string[] {
  const lines: { at: number; text: string }[] = [];
  for (const step of scenario.nemesis ?? []) lines.push({ at: step.atMs, text: nemesisLine(step) });
  for (const partition of scenario.partitions ?? []) lines.push({ at: partition.startMs, text: partitionLine(partition) });
  for (const fault of scenario.faults ?? []) lines.push({ at: fault.startMs ?? 0, text: faultLine(fault) });
  // A stable sort: at the same moment, nemesis steps, then partitions, then faults.
  lines.sort((a, b) => a.at - b.at);
  const story = lines.map((line) => line.text);
  const choices = scenario.choices?.length ?? 0;
  if (choices > 0) story.push(`${choices} pinned fault choice${choices === 1 ? "" : "s"} (the messages the faults above hit)`);
  return story;
}

function nemesisLine(step: NemesisStepSpec): string {
  const at = `at ${step.atMs} ms`;
  switch (step.action) {
    case "command":
      return `${at}: ${step.actor} is told ${step.command?.command ?? "?"}`;
    case "clock-step":
      return `${at}: ${step.actor}'s clock jumps by ${step.deltaMs ?? 0} ms`;
    case "crash":
      return `${at}: ${step.actor} crashes`;
    case "restart":
      return `${at}: ${step.actor} restarts`;
    case "pause":
      return `${at}: ${step.actor}'s whole process pauses`;
    case "resume":
      return `${at}: ${step.actor} resumes`;
  }
}

function partitionLine(partition: PartitionSpec): string {
  const arrow = partition.direction === "two-way" ? "<->" : partition.direction === "a-to-b" ? "->" : "<-";
  return `${partition.startMs}-${partition.endMs} ms: partition ${partition.name}: ${partition.a.join(",")} ${arrow} ${partition.b.join(",")} cut (${partition.direction})`;
}

function faultLine(fault: MessageFaultSpec): string {
  const effects: string[] = [];
  const drop = fault.drop;
  if (drop !== undefined)
    effects.push(
      "probability" in drop ? `drops ${drop.probability * 100}%` : `drops in bursts (${drop.gilbertElliott.lossInBad * 100}% while bad)`,
    );
  if (fault.delay !== undefined) effects.push(`delays (${fault.delay.dist})`);
  if (fault.duplicate !== undefined) effects.push(`duplicates ${fault.duplicate.probability * 100}%`);
  if (fault.reorder !== undefined) effects.push(`reorders ${fault.reorder.probability * 100}%`);
  if (fault.bandwidth !== undefined) effects.push(`limits to ${fault.bandwidth.bytesPerSecond} B/s`);
  if (fault.corrupt !== undefined) effects.push(`corrupts ${fault.corrupt.probability * 100}% (${fault.corrupt.mode})`);
  const what = fault.types === undefined ? "every message" : fault.types.join("/");
  const from = fault.from === undefined ? "" : ` from ${fault.from.join(",")}`;
  const to = fault.to === undefined ? "" : ` to ${fault.to.join(",")}`;
  const window = `${fault.startMs ?? 0}-${fault.endMs === undefined ? "end" : fault.endMs} ms`;
  return `${window}: fault ${fault.name} ${effects.join(", ") || "touches"} ${what}${from}${to}`;
}
