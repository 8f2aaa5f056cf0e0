import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { HistoryEvent } from "../history/history-event.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import type { SimulationSpec } from "../kernel/simulation-spec.js";
import type { ReportData } from "./report-data.js";
import { ReportExtractor, type ReportInputs, type ReportSummary, withExplanations } from "./report-extractor.js";

/** A run directory the report cannot read: one line for the user. */
export class RunDirectoryError extends Error {
  override readonly name = "RunDirectoryError";
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";

/** What is wrong with a parsed history line, or null if it has the fields the report reads. */
export function historyLineProblem(value: unknown): string | null {
  if (!isRecord(value)) return "not a JSON object";
  if (typeof value.t !== "number" || !Number.isFinite(value.t)) return "no numeric t";
  switch (value.ev) {
    case "send":
      return isString(value.from) && isString(value.to) && isString(value.type) && isString(value.fate)
        ? null
        : "a send needs from, to, type and fate";
    case "obs":
      if (!isString(value.actor) || !isRecord(value.o) || !isString(value.o.type)) return "an observation needs actor and o.type";
      return observationProblem(value.o);
    case "life":
      return isString(value.actor) && isString(value.what) ? null : "a lifecycle event needs actor and what";
    case "error":
    case "reject":
    case "lost":
      return isString(value.actor) ? null : `an ${String(value.ev)} event needs actor`;
    case "conn":
      if (!isString(value.actor) || !isString(value.peer) || !isString(value.what) || !Number.isInteger(value.gen))
        return "a connection event needs actor, peer, what and an integer gen";
      if (value.at !== undefined && !(Array.isArray(value.at) && value.at.length === 2 && value.at.every(Number.isFinite)))
        return "a connection event's at must be [when the client noticed, when the server noticed]";
      return null;
    default:
      return `unknown ev ${JSON.stringify(value.ev)}`;
  }
}

/** Partitions by topic, as ownership observations carry them: {"topic": [0, 1]}. */
function isPartitionsByTopic(value: unknown): boolean {
  return isRecord(value) && Object.values(value).every((list) => Array.isArray(list) && list.every(Number.isInteger));
}

/** A commit's topics as columns: [{topic, partitions, offsets}] (with `errorCodes` too if `answered`), one length each. */
function areCommitColumns(topics: unknown, answered: boolean): boolean {
  const isColumn = (column: unknown, length: number, isItem: (item: unknown) => boolean) =>
    Array.isArray(column) && column.length === length && column.every(isItem);
  return (
    Array.isArray(topics) &&
    topics.every(
      (t) =>
        isRecord(t) &&
        isString(t.topic) &&
        Array.isArray(t.partitions) &&
        t.partitions.every(Number.isInteger) &&
        isColumn(t.offsets, t.partitions.length, (offset) => typeof offset === "number") &&
        (!answered || isColumn(t.errorCodes, t.partitions.length, Number.isInteger)),
    )
  );
}

/** What is wrong with an observation the report reads field by field (ownership and assignments), or null. */
function observationProblem(o: Record<string, unknown>): string | null {
  switch (o.type) {
    case "member.owned":
      return isString(o.memberId) && isPartitionsByTopic(o.owned) ? null : "member.owned needs memberId and owned partitions by topic";
    case "member.records":
    case "member.records-dropped":
      return Array.isArray(o.ranges) &&
        o.ranges.every(
          (r) =>
            isRecord(r) &&
            isString(r.topic) &&
            Number.isInteger(r.partition) &&
            typeof r.firstOffset === "number" &&
            typeof r.lastOffset === "number" &&
            typeof r.count === "number",
        )
        ? null
        : `${o.type} needs ranges [{topic, partition, firstOffset, lastOffset, count}]`;
    case "gc.offset-commit":
      return isString(o.groupId) && isString(o.memberId) && Number.isInteger(o.epoch) && areCommitColumns(o.topics, true)
        ? null
        : "gc.offset-commit needs groupId, memberId, epoch and topics [{topic, partitions, offsets, errorCodes}] of one length each";
    case "member.commit":
      return isString(o.memberId) && areCommitColumns(o.topics, false)
        ? null
        : "member.commit needs memberId and topics [{topic, partitions, offsets}] of one length each";
    default:
      return null;
  }
}

/**
 * A line of an older history in today's shape: before format 3 a
 * `member.records` held one partition's records (topic, partition,
 * offsets, count) where today's holds a range per partition; before
 * format 4 a `gc.offset-commit` held one partition (topic, partition,
 * offset, errorCode) where today's holds every partition of its request;
 * before format 6 a `member.commit` held its offsets by topic, then
 * partition ({"T": {"0": 5}}) where today's holds a column pair per topic.
 */
export function upgradedHistoryLine(value: unknown): unknown {
  if (!isRecord(value) || value.ev !== "obs" || !isRecord(value.o)) return value;
  if (value.o.type === "member.records" && !("ranges" in value.o)) {
    const { type, memberId, topic, partition, firstOffset, lastOffset, count } = value.o;
    return { ...value, o: { type, memberId, ranges: [{ topic, partition, firstOffset, lastOffset, count }] } };
  }
  if (value.o.type === "gc.offset-commit" && !("topics" in value.o)) {
    const { type, groupId, memberId, epoch, topic, partition, offset, errorCode, transactional } = value.o;
    return {
      ...value,
      o: {
        type,
        groupId,
        memberId,
        epoch,
        transactional,
        topics: [{ topic, partitions: [partition], offsets: [offset], errorCodes: [errorCode] }],
      },
    };
  }
  if (value.o.type === "member.commit" && !("topics" in value.o) && isRecord(value.o.offsets)) {
    const { offsets, ...rest } = value.o;
    const topics = Object.entries(offsets).map(([topic, byPartition]) => {
      const entries = isRecord(byPartition) ? Object.entries(byPartition) : [];
      return { topic, partitions: entries.map(([partition]) => Number(partition)), offsets: entries.map(([, offset]) => offset) };
    });
    return { ...value, o: { ...rest, topics } };
  }
  return value;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new RunDirectoryError(`${file}: invalid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

function isViolation(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.t === "number" &&
    isString(value.message) &&
    Array.isArray(value.events) &&
    value.events.every(Number.isInteger)
  );
}

/** summary.json, if the directory has one. */
function readSummary(dir: string): ReportSummary | null {
  const file = join(dir, "summary.json");
  if (!existsSync(file)) return null;
  const summary = readJson(file);
  if (!isRecord(summary)) throw new RunDirectoryError(`${file}: not a run summary (expected a JSON object)`);
  const checks = summary.checks;
  if (checks !== undefined) {
    const valid =
      isRecord(checks) &&
      Object.values(checks).every(
        (c) => isRecord(c) && typeof c.ok === "boolean" && Array.isArray(c.violations) && c.violations.every(isViolation),
      );
    if (!valid) throw new RunDirectoryError(`${file}: checks: expected {name: {ok, violations: [{t, message, events}]}}`);
  }
  return summary as ReportSummary;
}

/** spec.json (the resolved simulation spec), if the directory has one. */
function readSpec(dir: string): SimulationSpec | null {
  const file = join(dir, "spec.json");
  if (!existsSync(file)) return null;
  const spec = readJson(file);
  const valid =
    isRecord(spec) &&
    typeof spec.durationUs === "number" &&
    Array.isArray(spec.actors) &&
    spec.actors.every((a) => isRecord(a) && isString(a.id) && isString(a.kind)) &&
    Array.isArray(spec.nemesis) &&
    spec.nemesis.every((n) => isRecord(n) && typeof n.atUs === "number" && isString(n.actor) && isRecord(n.control)) &&
    isRecord(spec.plan) &&
    Array.isArray(spec.plan.messageFaults) &&
    spec.plan.messageFaults.every((f) => isRecord(f) && isString(f.name)) &&
    Array.isArray(spec.plan.partitions) &&
    spec.plan.partitions.every((p) => isRecord(p) && isString(p.name) && typeof p.startMs === "number" && typeof p.endMs === "number");
  if (!valid)
    throw new RunDirectoryError(
      `${file}: not a simulation spec (expected durationUs, actors [{id, kind}], nemesis [{atUs, actor, control}] and plan)`,
    );
  return spec as unknown as SimulationSpec;
}

/**
 * Reads a run directory (history.jsonl, and summary.json, spec.json and
 * command.txt when present) and extracts the report's data, streaming the
 * history line by line: a 10-minute chaos run's history is tens of
 * megabytes and is never held whole.
 */
export async function readRunDirectory(dir: string, registry: ActorRegistry | null = null): Promise<ReportData> {
  if (!existsSync(dir)) throw new RunDirectoryError(`${dir}: no such directory`);
  if (!statSync(dir).isDirectory()) throw new RunDirectoryError(`${dir}: not a directory (give the run directory that --out wrote)`);
  const historyFile = join(dir, "history.jsonl");
  if (!existsSync(historyFile))
    throw new RunDirectoryError(`${dir} has no history.jsonl (is it a run directory written by kcsim run --out?)`);
  if (!statSync(historyFile).isFile()) throw new RunDirectoryError(`${historyFile}: not a file`);
  const summary = readSummary(dir);
  const spec = readSpec(dir);
  const commandFile = join(dir, "command.txt");
  const replay = existsSync(commandFile) ? (readFileSync(commandFile, "utf8").split("\n")[0]?.trim() ?? "") : "";

  let extractor: ReportExtractor | null = null;
  let inputs: ReportInputs | null = null;
  let lineNumber = 0;
  const lines = historyLines(historyFile);
  for await (const line of lines) {
    lineNumber++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      lines.close();
      throw new RunDirectoryError(
        `${historyFile}:${lineNumber}: malformed history line (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (extractor === null) {
      if (!isRecord(value) || value.kcsim !== "history" || !isString(value.scenario) || typeof value.seed !== "number") {
        lines.close();
        throw new RunDirectoryError(`${historyFile}:1: not a kcsim history (the first line must be its header)`);
      }
      inputs = { header: { scenario: value.scenario, seed: value.seed }, spec, summary, replay: replay || null, rerunWith: registry };
      extractor = new ReportExtractor(inputs);
      continue;
    }
    value = upgradedHistoryLine(value);
    const problem = historyLineProblem(value);
    if (problem !== null) {
      lines.close();
      throw new RunDirectoryError(`${historyFile}:${lineNumber}: malformed history line (${problem})`);
    }
    try {
      extractor.accept(value as HistoryEvent);
    } catch (error) {
      // A line that passed the checks above but still does not hold what its kind promises: the file is damaged.
      lines.close();
      throw new RunDirectoryError(
        `${historyFile}:${lineNumber}: the report cannot read this line (${error instanceof Error ? error.message : String(error)})`,
      );
    }
  }
  if (extractor === null || inputs === null) throw new RunDirectoryError(`${historyFile}: empty (no header line)`);
  let data: ReturnType<typeof extractor.finish>;
  try {
    data = extractor.finish();
  } catch (error) {
    throw new RunDirectoryError(
      `${historyFile}: the report cannot be built from this history (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (extractor.chains.planned) {
    // The second pass: the events in the violations' windows (the first pass checked every line).
    let index = -1;
    for await (const line of historyLines(historyFile)) {
      if (index >= 0) extractor.chains.collect(upgradedHistoryLine(JSON.parse(line)) as HistoryEvent, index);
      index++;
    }
  }
  return withExplanations(data, extractor, inputs);
}

function historyLines(file: string) {
  return createInterface({ input: createReadStream(file, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY });
}
