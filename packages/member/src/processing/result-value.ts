/**
 * The value of the output record a consume-process-produce application
 * makes of an input record: `in:<topic>-<partition>@<offset>;by:<writer>`,
 * naming the input record it is the result of and the actor that
 * processed it. Checkers read it back from the output topic.
 */
export interface ResultOrigin {
  /** The input record. */
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The actor id of the application that processed it. */
  readonly writer: string;
}

const RESULT_VALUE = /^in:(.+)-(\d+)@(\d+);by:(.+)$/;

export function resultValueOf(origin: ResultOrigin): string {
  return `in:${origin.topic}-${origin.partition}@${origin.offset};by:${origin.writer}`;
}

/** The origin a result value names, or null when the value is not a result. */
export function parseResultValue(value: string | null): ResultOrigin | null {
  const match = value === null ? null : RESULT_VALUE.exec(value);
  if (match === null) return null;
  const [, topic, partition, offset, writer] = match;
  if (topic === undefined || partition === undefined || offset === undefined || writer === undefined) return null;
  return { topic, partition: Number(partition), offset: Number(offset), writer };
}
