/**
 * Matching actor ids and message types against lists of ids or globs
 * (`member-*`, `*Heartbeat*`). Compiled once per fault; results are cached
 * per name because the same few names are matched millions of times.
 */
export class NameMatcher {
  readonly #patterns: readonly RegExp[] | null;
  readonly #cache = new Map<string, boolean>();

  /** `undefined` (absent) matches everything. */
  constructor(patterns: readonly string[] | undefined) {
    this.#patterns = patterns === undefined ? null : patterns.map(globToRegExp);
  }

  matches(name: string): boolean {
    if (this.#patterns === null) return true;
    let hit = this.#cache.get(name);
    if (hit === undefined) {
      hit = this.#patterns.some((pattern) => pattern.test(name));
      this.#cache.set(name, hit);
    }
    return hit;
  }
}

export function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`);
}
