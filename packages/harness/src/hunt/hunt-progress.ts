import { SingleBar } from "cli-progress";

/** Progress of a hunt: a bar on a terminal, a plain line every few seconds otherwise. */
export class HuntProgress {
  readonly #bar: SingleBar | null;
  readonly #total: number;
  readonly #started = performance.now();
  #lastLine = 0;

  constructor(total: number, interactive: boolean) {
    this.#total = total;
    this.#bar = interactive
      ? new SingleBar({ format: "hunt [{bar}] {value}/{total} runs | {rate} runs/s | {failures} failures", hideCursor: true }, undefined)
      : null;
    this.#bar?.start(total, 0, { rate: "0.0", failures: 0 });
  }

  update(done: number, failures: number): void {
    const seconds = (performance.now() - this.#started) / 1000;
    const rate = (done / Math.max(seconds, 1e-3)).toFixed(1);
    if (this.#bar !== null) {
      this.#bar.update(done, { rate, failures });
    } else if (performance.now() - this.#lastLine > 5000 || done === this.#total) {
      this.#lastLine = performance.now();
      process.stderr.write(`hunt: ${done}/${this.#total} runs, ${rate} runs/s, ${failures} failures\n`);
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
