import { type ChildProcess, spawn } from "node:child_process";
import { createServer, Socket } from "node:net";

/** A loopback TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Answers PING with PONG? */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
    socket.connect(port, "127.0.0.1", () => socket.write("PING\r\n"));
  });
}

/**
 * A real redis-server (the Debian package) on a loopback port, with no
 * persistence (`--save "" --appendonly no`): stopping it loses every key,
 * as a Redis restarted without a disk does. For the queue benchmark and
 * the queue tests.
 */
export class RedisServer {
  readonly port: number;
  #process: ChildProcess | null = null;

  constructor(port: number) {
    this.port = port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn("redis-server", ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    this.#process = child;
    const exited = new Promise<never>((_, reject) => {
      child.once("exit", (code) => reject(new Error(`redis-server on port ${this.port} exited with code ${code}`)));
      child.once("error", (error) =>
        reject(
          new Error(`cannot start redis-server (${error.message}): apt-get install redis-server, as scripts/system-packages.mjs does`),
        ),
      );
    });
    const deadline = Date.now() + 20_000;
    while (!(await Promise.race([pong(this.port), exited]))) {
      if (Date.now() > deadline) throw new Error(`redis-server on port ${this.port} did not answer PING`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Kills the server (SIGKILL: a crash, not a shutdown) and waits until it is gone. */
  async kill(): Promise<void> {
    const child = this.#process;
    this.#process = null;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await gone;
  }
}
