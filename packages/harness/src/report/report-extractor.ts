import type { Micros } from "@kcsim/protocol";
import { groupTopologies } from "../analysis/group-topology.js";
import type { CheckResult } from "../checkers/checker.js";
import { CHECKERS } from "../checkers/registry.js";
import type { HistoryEvent, HistoryHeader } from "../history/history-event.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import { CausalChains, type ChainEnrichment } from "./causal-chain.js";
import { replayChains } from "./chain-replay.js";
import { ConnectionTimelines } from "./connection-timelines.js";
import { ConsumerProgress } from "./consumer-progress.js";
import { FaultBands } from "./fault-bands.js";
import { GroupTimelines } from "./group-timelines.js";
import { MemberDirectory } from "./member-directory.js";
import { type MemberOfGroup, MemberTimelines } from "./member-timelines.js";
import { OwnershipIntervals } from "./ownership-intervals.js";
import { ProcessTimelines } from "./process-timelines.js";
import type { ReportData } from "./report-data.js";
import { TimerExpiries } from "./timer-expiries.js";
import { ViolationViews } from "./violation-views.js";

/** What a run's summary (summary.json) gives the report; every field may be missing from an older or hand-made one. */
export interface ReportSummary {
  readonly host?: string;
  readonly historyHash?: string;
  readonly replay?: string;
  readonly checks?: Readonly<Record<string, CheckResult>>;
  readonly metrics?: unknown;
}

/** Everything besides the history's events that the report reads. */
export interface ReportInputs {
  readonly header: Pick<HistoryHeader, "scenario" | "seed">;
  /** The run's resolved spec (spec.json): fault windows and group topology. Null: inferred from the history. */
  readonly spec: SimulationSpec | null;
  readonly summary: ReportSummary | null;
  /** The command that replays the run (command.txt), when the summary has none. */
  readonly replay?: string | null;
  /** Descriptions of checkers the run registered besides kcsim's own. */
  readonly descriptions?: ReadonlyMap<string, string>;
  /**
   * The actor registry to re-run the spec with, for the payloads and log lines of the violations' causal
   * chains; null: no re-run (a realtime run, or a registry this process cannot load).
   */
  readonly rerunWith?: ActorRegistry | null;
}

const byName = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

/**
 * Reads a history once, event by event (it may be far too large to hold
 * twice), and keeps only what the report draws: intervals, segments,
 * bands and marks, plus the events the checkers' violations name.
 */
export class ReportExtractor {
  readonly #inputs: ReportInputs;
  readonly #directory = new MemberDirectory();
  readonly #ownership = new OwnershipIntervals();
  readonly #members = new MemberTimelines();
  readonly #groups = new GroupTimelines();
  readonly #processes = new ProcessTimelines();
  readonly #faults = new FaultBands();
  readonly #timers = new TimerExpiries();
  readonly #violations: ViolationViews;
  readonly #progress: ConsumerProgress;
  readonly #connections: ConnectionTimelines;
  /** The causal chains of the violations: planned by finish(), collected in a second pass (see explainViolations). */
  readonly chains = new CausalChains();
  #count = 0;
  #lastUs: Micros = 0;

  constructor(inputs: ReportInputs) {
    this.#inputs = inputs;
    this.#violations = new ViolationViews(inputs.summary?.checks ?? null);
    this.#connections = new ConnectionTimelines(new Map((inputs.spec?.actors ?? []).map((a) => [a.id, a.kind])));
    this.#progress = new ConsumerProgress(this.#directory, inputs.spec, inputs.spec === null ? [] : groupTopologies(inputs.spec));
  }

  accept(event: HistoryEvent): void {
    this.#directory.accept(event);
    this.#progress.accept(event);
    this.chains.observe(event);
    this.#ownership.accept(event);
    this.#members.accept(event);
    this.#groups.accept(event);
    this.#processes.accept(event);
    this.#faults.accept(event);
    this.#timers.accept(event);
    this.#connections.accept(event);
    this.#violations.accept(event, this.#count);
    this.#count++;
    if (event.t > this.#lastUs) this.#lastUs = event.t;
  }

  finish(): ReportData {
    const { spec, summary, header } = this.#inputs;
    const metricsMs = virtualMsOf(summary?.metrics);
    const endUs = Math.max(spec?.durationUs ?? 0, this.#lastUs, metricsMs === null ? 0 : Math.round(metricsMs * 1000), 1);
    const topology = spec === null ? [] : groupTopologies(spec);
    const processes = this.#processes.finish(endUs);
    const ownership = this.#ownership.finish(endUs, topology);
    const members: MemberOfGroup[] = topology.flatMap((g) => g.members.map((actor) => ({ actor, groupId: g.groupId })));
    const memberTimelines = this.#members.finish(endUs, members, this.#directory, processes);
    const memberActors = new Set(memberTimelines.map((m) => m.actor));
    const actorOrder = spec?.actors.map((a) => a.id) ?? [];
    const rank = (actor: string) => {
      const i = actorOrder.indexOf(actor);
      return i < 0 ? actorOrder.length : i;
    };
    const connections = this.#connections.finish(endUs, [...memberTimelines.map((m) => m.actor), ...actorOrder]);
    const troubled = new Set(connections.timelines.map((c) => c.actor));
    for (const actor of troubled) if (!processes.has(actor)) processes.set(actor, { actor, bands: [], marks: [] });
    const others = [...processes.values()]
      .filter((p) => !memberActors.has(p.actor) && (p.bands.length > 0 || p.marks.length > 0 || troubled.has(p.actor)))
      .sort((a, b) => rank(a.actor) - rank(b.actor) || byName(a.actor, b.actor));
    const notes: string[] = [];
    if (spec === null)
      notes.push(
        "This run directory has no spec.json: fault windows are inferred from the first and last message each fault touched, and partitions that nobody was ever assigned have no row.",
      );
    if (summary === null) notes.push("This run directory has no summary.json: no checker verdicts and no metrics.");
    const descriptions = new Map([...CHECKERS].map(([name, checker]) => [name, checker.description]));
    for (const [name, description] of this.#inputs.descriptions ?? []) descriptions.set(name, description);
    const checks = this.#violations.finish(descriptions);
    this.chains.plan(checks, memberTimelines, ownership, this.#directory, endUs, {
      timelines: connections.timelines,
      nameOf: (client, gen) => this.#connections.nameOf(client, gen),
    });
    return {
      run: {
        scenario: header.scenario,
        seed: header.seed,
        host: summary?.host ?? null,
        historyHash: summary?.historyHash ?? null,
        replay: summary?.replay || this.#inputs.replay || null,
        historyEvents: this.#count,
        durationUs: endUs,
        topologySource: spec === null ? "history" : "spec",
      },
      groups: this.#groups.finish(
        endUs,
        topology.map((g) => g.groupId),
        ownership,
      ),
      members: memberTimelines,
      processes: others,
      connections: connections.timelines,
      connectionStats: connections.stats,
      faults: this.#faults.finish(endUs, spec?.plan ?? null),
      timers: this.#timers.finish(this.#directory),
      ownership,
      checks,
      metrics: summary?.metrics ?? null,
      notes,
      progress: this.#progress.finish(endUs),
      explanations: [],
    };
  }
}

function virtualMsOf(metrics: unknown): number | null {
  if (typeof metrics !== "object" || metrics === null || !("virtualMs" in metrics)) return null;
  return typeof metrics.virtualMs === "number" ? metrics.virtualMs : null;
}

/**
 * Finishes the violations' causal chains once their events were collected
 * (`extractor.chains.collect`, a second pass over the history), with
 * payloads and log lines from a re-run of the spec when the inputs allow
 * one: a spec, a registry, and a run from a deterministic host.
 */
export function withExplanations(data: ReportData, extractor: ReportExtractor, inputs: ReportInputs): ReportData {
  const chains = extractor.chains;
  if (!chains.planned) return data;
  const host = data.run.host;
  const registry = inputs.rerunWith ?? null;
  let rerun: ChainEnrichment | null = null;
  if (inputs.spec !== null && registry !== null && (host === "inline" || host === "lockstep")) {
    try {
      rerun = replayChains({
        spec: inputs.spec,
        registry,
        horizonUs: chains.horizonUs,
        sends: chains.sends(),
        logWindows: chains.logWindows(),
      });
    } catch (error) {
      // A spec this process cannot run again (actor kinds of a module it was not given): the chains stand without payloads.
      const reason = error instanceof Error ? error.message : String(error);
      rerun = { payloads: new Map(), logs: [], note: `no re-run: ${reason}` };
    }
  }
  return { ...data, explanations: chains.finish(rerun) };
}

/** Extracts the report's data from a run's events at hand (an array, or a finished run's log): two passes. */
export function extractReport(events: Iterable<HistoryEvent>, inputs: ReportInputs): ReportData {
  const extractor = new ReportExtractor(inputs);
  for (const event of events) extractor.accept(event);
  const data = extractor.finish();
  if (extractor.chains.planned) {
    let index = 0;
    for (const event of events) extractor.chains.collect(event, index++);
  }
  return withExplanations(data, extractor, inputs);
}
