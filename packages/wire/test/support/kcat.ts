import { execFile } from "node:child_process";

export interface KcatResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs Debian's kcat (librdkafka 2.0.2) with `args`, feeding `stdin`; resolves when it exits. */
export function kcat(args: readonly string[], stdin = "", timeoutMs = 30_000): Promise<KcatResult> {
  return new Promise((resolve) => {
    const child = execFile("kcat", [...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end(stdin);
  });
}

/**
 * The kcat runs that exercise every API librdkafka uses here: metadata, produce
 * (idempotent; gzip, with a value long enough that librdkafka keeps the
 * compressed form), consume, a group.
 */
export async function kcatSession(bootstrap: string, timeoutMs = 10_000): Promise<KcatResult[]> {
  const format = ["-f", "%k=%s@%o\\n"];
  const group = ["-X", "auto.offset.reset=earliest", "-X", "auto.commit.interval.ms=50", "-X", "heartbeat.interval.ms=50"];
  return [
    await kcat(["-b", bootstrap, "-L", "-m", "5"], "", timeoutMs),
    await kcat(["-b", bootstrap, "-P", "-t", "t", "-p", "0", "-K:", "-X", "enable.idempotence=true"], "k1:v1\nk2:v2\n", timeoutMs),
    await kcat(["-b", bootstrap, "-P", "-t", "t", "-p", "0", "-K:", "-X", "compression.codec=gzip"], `k3:${"v3".repeat(100)}\n`, timeoutMs),
    await kcat(["-b", bootstrap, "-G", "grp", "t", "-e", ...group, ...format], "", timeoutMs),
    await kcat(["-b", bootstrap, "-C", "-t", "t", "-p", "0", "-o", "beginning", "-e", ...format], "", timeoutMs),
  ];
}
