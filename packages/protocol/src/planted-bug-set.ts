import type { JsonValue } from "./actor.js";
import { isPlantedBugName, PLANTED_BUG_NAMES, PLANTED_BUGS_FIELD, type PlantedBugName } from "./planted-bugs.js";

/**
 * The planted bugs one actor runs with, read from its own config (never
 * from globals, so inline, lockstep and worker hosts behave the same).
 */
export class PlantedBugs {
  static readonly NONE = new PlantedBugs([]);
  readonly #names: ReadonlySet<PlantedBugName>;

  constructor(names: Iterable<PlantedBugName>) {
    this.#names = new Set(names);
  }

  has(name: PlantedBugName): boolean {
    return this.#names.has(name);
  }

  get size(): number {
    return this.#names.size;
  }

  /**
   * The `plantedBugs` field of an actor config (absent: none). Throws an
   * Error naming the field for anything but a list of known bug names.
   */
  static fromField(value: JsonValue | undefined): PlantedBugs {
    if (value === undefined) return PlantedBugs.NONE;
    if (!Array.isArray(value)) throw new Error(`config '${PLANTED_BUGS_FIELD}' must be a list of bug names, got ${JSON.stringify(value)}`);
    const names = value as readonly JsonValue[];
    const unknown = names.find((name) => typeof name !== "string" || !isPlantedBugName(name));
    if (unknown !== undefined) {
      throw new Error(`config '${PLANTED_BUGS_FIELD}' has unknown bug ${JSON.stringify(unknown)} (known: ${PLANTED_BUG_NAMES.join(", ")})`);
    }
    return names.length === 0 ? PlantedBugs.NONE : new PlantedBugs(names as readonly PlantedBugName[]);
  }

  /** The planted bugs of a whole actor config object (its `plantedBugs` field). */
  static ofConfig(config: JsonValue): PlantedBugs {
    if (typeof config !== "object" || config === null || Array.isArray(config)) return PlantedBugs.NONE;
    return PlantedBugs.fromField((config as { readonly [key: string]: JsonValue })[PLANTED_BUGS_FIELD]);
  }
}
