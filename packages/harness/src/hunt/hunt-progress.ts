import { SingleBar } from "cli-progress";

/**
 * Progress of a hunt: a bar on a terminal; otherwise a plain line every few
 * seconds and a last one when the hunt ends, so a log never ends on a
 * count that was already stale (a hunt that stops at its first failure
 * ends before its last seed). A queue hunt also shows the workers seen.
 */
export class HuntProgress {
  readonly #bar: SingleBar | null;
  readonly #total: number;
  readonly #write: (line: string) => void;
  readonly #now: () => number;
  readonly #started: number;
  /** When the last plain line went out (the first update prints at once). */
  #lastLine = Number.NEGATIVE_INFINITY;
  /** What the last plain line said, and what the hunt has done since. */
  #printed = "";
  #current = "";

  constructor(
    total: number,
    interactive: boolean,
    write: (line: string) => void = (line) => process.stderr.write(line),
    now: () => number = () => performance.now(),
    /** When the hunt started on the `now` clock, if before this command joined it (--resume): the rate counts from then. */
    startedAt: number = now(),
  ) {
    this.#total = total;
    this.#write = write;
    this.#now = now;
    this.#started = startedAt;
    this.#bar = interactive
      ? new SingleBar(
          { format: "hunt [{bar}] {value}/{total} runs | {rate} runs/s | {failures} failures{workers}", hideCursor: true },
          undefined,
        )
      : null;
    this.#bar?.start(total, 0, { rate: "0.0", failures: 0, workers: "" });
  }

  update(done: number, failures: number, workersSeen?: number): void {
    const seconds = (this.#now() - this.#started) / 1000;
    const rate = (done / Math.max(seconds, 1e-3)).toFixed(1);
    const workers = workersSeen === undefined ? "" : `${this.#bar === null ? "," : " |"} ${workersSeen} workers seen`;
    if (this.#bar !== null) {
      this.#bar.update(done, { rate, failures, workers });
      return;
    }
    this.#current = `hunt: ${done}/${this.#total} runs, ${rate} runs/s, ${failures} failures${workers}\n`;
    if (this.#now() - this.#lastLine > 5000 || done === this.#total) this.#flush();
  }

  /** Prints a finding to stdout without tearing the bar (it redraws on the next update). */
  log(text: string): void {
    if (this.#bar !== null) process.stderr.write("\r\x1b[K");
    process.stdout.write(text);
  }

  stop(): void {
    this.#bar?.stop();
    if (this.#current !== this.#printed) this.#flush();
  }

  #flush(): void {
    this.#lastLine = this.#now();
    this.#printed = this.#current;
    this.#write(this.#current);
  }
}
