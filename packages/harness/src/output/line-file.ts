import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";

/** Lines are written to disk in chunks of about this many characters. */
const FLUSH_CHARS = 1024 * 1024;

/**
 * A file of lines (history.jsonl) written as they are produced, a chunk at
 * a time, so no run holds its lines in memory. They go to a temporary file
 * beside the target (`<path>.partial`), renamed over it by `close()`: the
 * file appears whole or not at all, as writeAtomic's do.
 */
export class LineFile {
  readonly path: string;
  readonly #partial: string;
  #fd: number | null;
  #pending = "";

  constructor(path: string) {
    this.path = path;
    this.#partial = `${path}.partial`;
    this.#fd = openSync(this.#partial, "w");
  }

  /** Appends a line (its "\n" is added). */
  readonly write = (line: string): void => {
    this.#pending += `${line}\n`;
    if (this.#pending.length >= FLUSH_CHARS) this.#flush();
  };

  /** Writes what is left and puts the file in place. */
  close(): void {
    if (this.#fd === null) return;
    this.#flush();
    closeSync(this.#fd);
    this.#fd = null;
    renameSync(this.#partial, this.path);
  }

  /** Drops the file (the run failed): nothing appears under its name. */
  abandon(): void {
    if (this.#fd === null) return;
    closeSync(this.#fd);
    this.#fd = null;
    rmSync(this.#partial, { force: true });
  }

  #flush(): void {
    if (this.#pending === "" || this.#fd === null) return;
    writeSync(this.#fd, this.#pending);
    this.#pending = "";
  }
}
