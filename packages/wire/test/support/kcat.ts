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

/** The kcat runs that exercise every API librdkafka uses here: metadata, produce (idempotent, gzip), consume, a group. */
export async function kcatSession(bootstrap: string): Promise<KcatResult[]> {
  {
    const results: KcatResult[] = [];
    results.push(await kcat(["-b", bootstrap, "-L", "-m", "5"]));
    results.push(await kcat(["-b", bootstrap, "-P", "-t", "t", "-p", "0", "-K:", "-X", "enable.idempotence=true"], "k1:v1\nk2:v2\n"));
    results.push(await kcat(["-b", bootstrap, "-P", "-t", "t", "-p", "0", "-K:", "-X", "compression.codec=gzip"], "k3:v3\n"));
    results.push(await kcat(["-b", bootstrap, "-C", "-t", "t", "-p", "0", "-o", "beginning", "-e", "-f", "%k=%s@%o\\n"]));
    results.push(
      await kcat([
        "-b",
        bootstrap,
        "-G",
        "grp",
        "t",
        "-e",
        "-X",
        "auto.offset.reset=earliest",
        "-X",
        "auto.commit.interval.ms=50",
        "-X",
        "heartbeat.interval.ms=50",
        "-f",
        "%k=%s@%o\\n",
      ]),
    );
    return results;
  }
}
