import type { JsonValue } from "@kcsim/protocol";
import { outputProducerSettings } from "./output-producer-settings.js";

/**
 * What the application does with a polled batch:
 * - `poll`: it only spends its processing time on it (and commits as `app.commit` says);
 * - `consume-process-produce`: each input record yields one output record
 *   sent to `output.topic`; with `output.transactional` the batch's
 *   results and its next offsets are committed in one transaction
 *   (Kafka's exactly-once pattern), otherwise the results are sent with
 *   an idempotent producer and the offsets committed with commitSync after
 *   they are acknowledged.
 */
export type ApplicationMode = "poll" | "consume-process-produce";

/**
 * An external store the application writes every processed record to
 * (`sink.write` observations): `append` adds a row per write, `upsert`
 * keys rows by the input record (topic, partition, offset), so a
 * re-delivered record overwrites its row.
 */
export type SinkMode = "append" | "upsert";

/** Where a consume-process-produce application sends its results. */
export interface OutputConfig {
  readonly topic: string;
  /** Results and offsets in one transaction (transactional.id "<group id>-<actor id>"). */
  readonly transactional: boolean;
  /** Kafka producer settings of the output producer (transaction.timeout.ms, linger.ms, ...). */
  readonly producer: { readonly [setting: string]: JsonValue };
}

/** The application's processing, as `app.mode`, `app.output` and `app.sink` describe it. */
export interface ProcessingConfig {
  readonly mode: ApplicationMode;
  /** null unless mode is consume-process-produce. */
  readonly output: OutputConfig | null;
  readonly sink: SinkMode | null;
}

export const APPLICATION_MODES: readonly ApplicationMode[] = ["poll", "consume-process-produce"];
export const SINK_MODES: readonly SinkMode[] = ["append", "upsert"];
export const PROCESSING_FIELDS: readonly string[] = ["mode", "output", "sink"];
const OUTPUT_FIELDS: readonly string[] = ["topic", "transactional", "producer"];

type JsonObject = { readonly [key: string]: JsonValue };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Reads `mode`, `output` and `sink` of an app config object. `fail(field,
 * problem)` throws the caller's config error; cross-checks with the rest of
 * the member config (topics, source, commits) are the caller's.
 */
export function parseProcessingConfig(app: JsonObject, fail: (field: string, problem: string) => never): ProcessingConfig {
  const mode = app.mode ?? "poll";
  if (typeof mode !== "string" || !(APPLICATION_MODES as readonly string[]).includes(mode)) {
    fail("app.mode", `must be one of ${APPLICATION_MODES.join(", ")}, got ${JSON.stringify(mode)}`);
  }
  const sink = app.sink ?? null;
  if (sink !== null && (typeof sink !== "string" || !(SINK_MODES as readonly string[]).includes(sink))) {
    fail("app.sink", `must be one of ${SINK_MODES.join(", ")}, got ${JSON.stringify(sink)}`);
  }
  const output = app.output ?? undefined;
  if (mode !== "consume-process-produce") {
    if (output !== undefined) fail("app.output", 'needs app.mode "consume-process-produce"');
    return { mode: mode as ApplicationMode, output: null, sink: sink as SinkMode | null };
  }
  if (!isObject(output)) fail("app.output", `must be an object {topic, transactional, producer?}, got ${JSON.stringify(output ?? null)}`);
  const unknown = Object.keys(output).find((key) => !OUTPUT_FIELDS.includes(key));
  if (unknown !== undefined) fail(`app.output.${unknown}`, "is not a known field");
  const topic = output.topic;
  if (typeof topic !== "string" || topic === "")
    fail("app.output.topic", `must be a non-empty string, got ${JSON.stringify(topic ?? null)}`);
  const transactional = output.transactional ?? false;
  if (typeof transactional !== "boolean") fail("app.output.transactional", `must be a boolean, got ${JSON.stringify(transactional)}`);
  const producer = output.producer ?? {};
  if (!isObject(producer)) fail("app.output.producer", `must be an object of producer settings, got ${JSON.stringify(producer)}`);
  const config: OutputConfig = { topic, transactional, producer };
  try {
    outputProducerSettings(config, transactional ? "validation" : null);
  } catch (error) {
    fail("app.output.producer", error instanceof Error ? error.message : String(error));
  }
  return { mode: "consume-process-produce", output: config, sink: sink as SinkMode | null };
}
