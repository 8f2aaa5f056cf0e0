import { SingleBar } from "cli-progress";

/** Progress of a hunt: a bar on a terminal, a plain line every few seconds otherwise (with the workers seen, for a queue hunt). */
export class HuntProgress {
  readonly #bar: SingleBar | null;
  readonly #total: number;
  readonly #started: number;
  #lastLine = 0;

  /** `startedAt` (performance.now() time) counts the rate from the hunt's start when this command joined it later (--resume). */
  constructor(total: number, interactive: boolean, startedAt = performance.now()) {
    this.#total = total;
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
    const seconds = (performance.now() - this.#started) / 1000;
    const rate = (done / Math.max(seconds, 1e-3)).toFixed(1);
    const workers = workersSeen === undefined ? "" : `${this.#bar === null ? "," : " |"} ${workersSeen} workers seen`;
    if (this.#bar !== null) {
      this.#bar.update(done, { rate, failures, workers });
    } else if (performance.now() - this.#lastLine > 5000 || done === this.#total) {
      this.#lastLine = performance.now();
      process.stderr.write(`hunt: ${done}/${this.#total} runs, ${rate} runs/s, ${failures} failures${workers}\n`);
    }
  }

  /** Prints a finding to stdout without tearing the bar (it redraws on the next update). */
  log(text: string): void {
    if (this.#bar !== null) process.stderr.write("\r\x1b[K");
    process.stdout.write(text);
  }

  stop(): void {
    this.#bar?.stop();
  }
}
