import { type ChildProcess, spawn } from "node:child_process";
import { repoRoot } from "../cli/paths.js";
import { entryPoint } from "../kernel/built-module.js";

export const root = repoRoot();

/** A `kcsim` command running in its own process (the built CLI, as `pnpm kcsim` runs it), its output collected as it comes (benchmarks and tests). */
export class KcsimProcess {
  readonly child: ChildProcess;
  stdout = "";
  stderr = "";
  readonly exited: Promise<number | null>;

  constructor(args: readonly string[]) {
    const cli = entryPoint("cli");
    this.child = spawn(process.execPath, [cli, ...args], { cwd: root, env: { ...process.env, INIT_CWD: root } });
    this.child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      this.stdout += chunk;
    });
    this.child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => this.child.once("close", (code) => resolve(code)));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until `condition` holds (checked every 50 ms); fails with the output so far after `timeoutMs`. */
  async until(condition: (p: KcsimProcess) => boolean, what: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition(this)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): Promise<number | null> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }
}

/** Runs a kcsim command to its end. */
export async function kcsimRun(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = new KcsimProcess(args);
  const code = await p.exited;
  return { code, stdout: p.stdout, stderr: p.stderr };
}
