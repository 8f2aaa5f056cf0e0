/**
 * A range of versions as Kafka's message specs write them: "0+", "3-7",
 * "5", or "none". Bounds are inclusive; "n+" has no upper bound.
 */
export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

export const NO_VERSIONS: VersionRange = { min: 1, max: 0 };

export function versionRange(spec: string): VersionRange {
  if (spec === "none") return NO_VERSIONS;
  const open = /^(\d+)\+$/.exec(spec);
  if (open) return { min: Number(open[1]), max: Number.POSITIVE_INFINITY };
  const closed = /^(\d+)(?:-(\d+))?$/.exec(spec);
  if (closed) return { min: Number(closed[1]), max: Number(closed[2] ?? closed[1]) };
  throw new RangeError(`not a version range: "${spec}"`);
}

export function inRange(range: VersionRange, version: number): boolean {
  return version >= range.min && version <= range.max;
}
