import type { ArmedTimer } from "./event.js";

/**
 * A cell's timer entries by name (see ActorCell's #timers): a Map, and the
 * two kept entries (ArmedTimer.kept) looked up last, held in fields. A cell
 * looks a name up at every arming and every firing, and most of those are
 * one or two names (a consumer's application and background timers, a
 * pinger's timeout): a field compare instead of a Map lookup each time.
 * Each remembered name maps to what the Map maps it to: set, delete and
 * clear keep the two in step.
 */
export class TimerTable {
  readonly #byName = new Map<string, ArmedTimer>();
  #name0: string | null = null;
  #entry0: ArmedTimer | undefined = undefined;
  #name1: string | null = null;
  #entry1: ArmedTimer | undefined = undefined;

  get(name: string): ArmedTimer | undefined {
    if (name === this.#name0) return this.#entry0;
    if (name === this.#name1) return this.#entry1;
    const entry = this.#byName.get(name);
    // A name armed once (a request's timeout) is not kept: remembering it would only push out one that recurs.
    if (entry?.kept === true) {
      this.#name1 = this.#name0;
      this.#entry1 = this.#entry0;
      this.#name0 = name;
      this.#entry0 = entry;
    }
    return entry;
  }

  set(name: string, entry: ArmedTimer): void {
    this.#byName.set(name, entry);
    if (name === this.#name0) this.#entry0 = entry;
    else if (name === this.#name1) this.#entry1 = entry;
  }

  delete(name: string): void {
    this.#byName.delete(name);
    if (name === this.#name0) {
      this.#name0 = null;
      this.#entry0 = undefined;
    } else if (name === this.#name1) {
      this.#name1 = null;
      this.#entry1 = undefined;
    }
  }

  clear(): void {
    this.#byName.clear();
    this.#name0 = null;
    this.#entry0 = undefined;
    this.#name1 = null;
    this.#entry1 = undefined;
  }

  values(): IterableIterator<ArmedTimer> {
    return this.#byName.values();
  }
}
