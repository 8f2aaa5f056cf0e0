import type { ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";

/** Waits until `condition` holds, polling every 100 ms; fails with `what()` after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Sends `signal` to a consumer's process and waits for it to exit. A process that has not exited 30 s after a
 * SIGTERM is killed (SIGKILL), as a crashed member, after `onKill` says so.
 */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals, onKill: () => void = () => {}): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill =
      signal === "SIGKILL"
        ? undefined
        : setTimeout(() => {
            onKill();
            child.kill("SIGKILL");
          }, 30_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * Removes a real-clock test's run directories, or keeps them when the test failed (a real-clock run cannot be
 * repeated: its history and report are what is left to read) and says where they are.
 */
export function releaseRunDirs(dirs: string[], failed: boolean, test: string): void {
  for (const dir of dirs.splice(0)) {
    if (failed) console.error(`${test}: kept the failed run's directory ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
