import { SyntheticRecordSource } from "@kcsim/member";
import { MICROS_PER_SECOND, type Micros } from "@kcsim/protocol";
import type { GroupTopology } from "../analysis/group-topology.js";
import { observationOf } from "../analysis/observations.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import type { MemberDirectory } from "./member-directory.js";
import type { GroupProgress, ProgressSample } from "./report-data.js";

/** Samples per run at most (the charts' resolution). */
const SAMPLES = 240;
/** The shortest bucket: members poll every few hundred ms, so shorter buckets only show the polls' rhythm. */
const MIN_BUCKET_US: Micros = 1_000_000;

interface GroupState {
  /** Per partition (`topic-partition`): the next offset the group's applications will be handed. */
  readonly position: Map<string, number>;
  readonly samples: ProgressSample[];
  records: number;
}

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;

/**
 * Each group's consumption over time, as the consumer's own fetch metrics
 * count it: records/s handed to its applications (member.records), and the
 * lag: per partition, the log end minus the group's position (the next
 * offset it hands out), summed over the group's partitions. The log end is
 * the high watermark the brokers report (broker.hw) on the data path, or
 * the synthetic source's arrival count (the member's SyntheticRecordSource
 * itself). Sampled at fixed steps while the history streams by.
 */
export class ConsumerProgress {
  readonly #directory: MemberDirectory;
  readonly #bucketUs: Micros;
  readonly #groups = new Map<string, GroupState>();
  readonly #partitionsOf: Map<string, readonly string[]>;
  readonly #synthetic = new Map<string, SyntheticRecordSource>();
  readonly #highWatermark = new Map<string, number>();
  #nextSampleUs: Micros;

  constructor(directory: MemberDirectory, spec: SimulationSpec | null, topology: readonly GroupTopology[]) {
    this.#directory = directory;
    this.#bucketUs = Math.max(MIN_BUCKET_US, spec === null ? 0 : Math.ceil(spec.durationUs / SAMPLES));
    this.#nextSampleUs = this.#bucketUs;
    this.#partitionsOf = new Map(topology.map((g) => [g.groupId, g.partitions]));
    for (const actor of spec?.actors ?? []) {
      const groupId = field(field(actor.config, "consumer"), "group.id");
      const source = field(actor.config, "source");
      if (typeof groupId !== "string" || this.#synthetic.has(groupId) || field(source, "kind") === "fetch") continue;
      const rate = field(source, "recordsPerSecondPerPartition");
      this.#synthetic.set(
        groupId,
        new SyntheticRecordSource({
          kind: "synthetic",
          recordsPerSecondPerPartition: typeof rate === "number" ? rate : 10,
          recordBytes: 1,
        }),
      );
    }
  }

  accept(event: HistoryEvent): void {
    while (event.t >= this.#nextSampleUs) {
      this.#sample(this.#nextSampleUs);
      this.#nextSampleUs += this.#bucketUs;
    }
    const hw = observationOf(event, "broker.hw");
    if (hw !== undefined) {
      this.#highWatermark.set(`${hw.topic}-${hw.partition}`, hw.highWatermark);
      return;
    }
    const records = observationOf(event, "member.records");
    if (records === undefined || event.ev !== "obs") return;
    const groupId = this.#directory.groupOf(event.actor);
    if (groupId === null) return;
    const group = this.#group(groupId);
    for (const range of records.ranges) {
      group.records += range.count;
      const key = `${range.topic}-${range.partition}`;
      group.position.set(key, Math.max(group.position.get(key) ?? 0, range.lastOffset + 1));
    }
  }

  finish(endUs: Micros): GroupProgress[] {
    while (this.#nextSampleUs <= endUs) {
      this.#sample(this.#nextSampleUs);
      this.#nextSampleUs += this.#bucketUs;
    }
    return [...this.#groups].map(([groupId, group]) => ({
      groupId,
      logEnd: this.#synthetic.has(groupId) ? "synthetic" : "high-watermark",
      samples: group.samples,
    }));
  }

  #group(groupId: string): GroupState {
    let group = this.#groups.get(groupId);
    if (group === undefined) {
      group = { position: new Map(), samples: [], records: 0 };
      this.#groups.set(groupId, group);
      // A group that consumed nothing until now had no records in the buckets before.
      for (let t = this.#bucketUs; t < this.#nextSampleUs; t += this.#bucketUs)
        group.samples.push({ tUs: t, recordsPerSecond: 0, lag: null });
    }
    return group;
  }

  #sample(tUs: Micros): void {
    for (const [groupId, group] of this.#groups) {
      const partitions = this.#partitionsOf.get(groupId) ?? [...group.position.keys()];
      const synthetic = this.#synthetic.get(groupId);
      let lag: number | null = 0;
      for (const partition of partitions) {
        const end = synthetic !== undefined ? synthetic.endOffset(tUs) : this.#highWatermark.get(partition);
        if (end === undefined) continue;
        lag += Math.max(0, end - (group.position.get(partition) ?? 0));
      }
      if (synthetic === undefined && this.#highWatermark.size === 0) lag = null;
      group.samples.push({ tUs, recordsPerSecond: (group.records * MICROS_PER_SECOND) / this.#bucketUs, lag });
      group.records = 0;
    }
  }
}
