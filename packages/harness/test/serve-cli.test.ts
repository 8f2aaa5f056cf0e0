import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { decodeResponse, encodeRequest, ZERO_UUID } from "@kcsim/wire";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

/** scenarios/serve-mixed.json: three brokers, a simulated producer, two simulated classic members (eager, range) in group "mixed". */
const SCENARIO = fileURLToPath(new URL("../../../scenarios/serve-mixed.json", import.meta.url));

interface Served {
  readonly child: ChildProcess;
  readonly bootstrap: string;
  readonly stdout: string[];
  readonly exited: Promise<number | null>;
}

/** `kcsim serve` as a user runs it, on free ports: resolves once it printed its bootstrap servers. */
function serve(scenarioFile: string, out: string): Promise<Served> {
  const child = spawn(process.execPath, [CLI, "serve", scenarioFile, "--port", "0", "--out", out], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stdout: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      stdout.push(line);
      const match = /bootstrap\.servers=(\S+)/.exec(line);
      if (match?.[1] !== undefined) resolve({ child, bootstrap: match[1], stdout, exited });
    });
    void exited.then((code) => reject(new Error(`kcsim serve exited early (${code}): ${stdout.join("\n")}`)));
  });
}

function kcat(args: readonly string[], timeoutMs = 60_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("kcat", [...args], { timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Sends raw bytes on a new connection; resolves with everything the server wrote before it closed (or the wait ended). */
function exchange(address: string, bytes: Uint8Array, waitMs = 5_000): Promise<{ received: Buffer; closedByServer: boolean }> {
  const [host, port] = address.split(":") as [string, string];
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), host);
    const chunks: Buffer[] = [];
    const done = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(chunks), closedByServer });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("end", () => done(true));
    socket.on("close", () => done(true));
    socket.on("error", () => done(true));
    socket.write(bytes);
  });
}

/** A frame: INT32 size, then the header (api key, version, correlation id, client id) and `body`. */
function rawFrame(apiKey: number, apiVersion: number, correlationId: number, clientId: string, body: Uint8Array): Buffer {
  const id = Buffer.from(clientId);
  const header = Buffer.alloc(10 + id.length);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(id.length, 8);
  id.copy(header, 10);
  const size = Buffer.alloc(4);
  size.writeInt32BE(header.length + body.length);
  return Buffer.concat([size, header, Buffer.from(body)]);
}

describe("kcsim serve (the CLI)", () => {
  let dir = "";
  let served: Served | null = null;
  let keepDirectory = false;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kcsim-serve-cli-"));
    served = await serve(SCENARIO, join(dir, "run"));
  }, 120_000);

  afterAll(async () => {
    served?.child.kill("SIGKILL");
    if (!keepDirectory) rmSync(dir, { recursive: true, force: true });
  });

  it("answers a malformed request and a request at an unsupported version as Kafka does, and goes on serving", async () => {
    const broker = (served as Served).bootstrap.split(",")[0] as string;
    // A Metadata v1 request whose topic array claims 5 entries and holds none: Kafka closes the connection.
    const malformed = await exchange(broker, rawFrame(3, 1, 1, "prober", Buffer.from([0, 0, 0, 5])));
    expect(malformed).toEqual({ received: Buffer.alloc(0), closedByServer: true });
    // JoinGroup v9 (this endpoint speaks 0-5): Kafka's parseRequestHeader fails, the connection is closed.
    const joinV9 = await exchange(broker, rawFrame(11, 9, 2, "prober", Buffer.alloc(40)));
    expect(joinV9).toEqual({ received: Buffer.alloc(0), closedByServer: true });
    // ApiVersions at a version it does not know is answered: UNSUPPORTED_VERSION with its own range (a v0 answer, KIP-511).
    // (A flexible request header: no tagged fields after the client id. Kafka does not read the body.)
    const apiVersionsV9 = await exchange(broker, rawFrame(18, 9, 3, "prober", Buffer.from([0])), 2_000);
    const answer = decodeResponse("ApiVersions", 0, apiVersionsV9.received.subarray(4));
    expect(answer.correlationId).toBe(3);
    expect(answer.body.errorCode).toBe(35);
    expect(answer.body.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 3 }]);
    // ...and the server serves the next connection: a Metadata v1 request names the three brokers and the topic.
    const request = encodeRequest(
      "Metadata",
      { apiVersion: 1, correlationId: 4, clientId: "prober" },
      {
        topics: [{ topicId: ZERO_UUID, name: "events" }],
        allowAutoTopicCreation: true,
        includeClusterAuthorizedOperations: false,
        includeTopicAuthorizedOperations: false,
      },
    );
    const metadata = await exchange(broker, request, 2_000);
    const decoded = decodeResponse("Metadata", 1, metadata.received.subarray(4));
    expect(decoded.body.brokers.map((b) => b.nodeId)).toEqual([0, 1, 2]);
    expect(decoded.body.topics[0]).toMatchObject({ name: "events", errorCode: 0 });
    expect(decoded.body.topics[0]?.partitions).toHaveLength(4);
  }, 60_000);

  it("lets kcat -C -G join a group next to simulated members, then SIGINT judges the run and writes it", async () => {
    const { bootstrap, child, stdout, exited } = served as Served;
    const consumed = await kcat([
      "-b",
      bootstrap,
      "-C",
      "-G",
      "mixed",
      "-X",
      "auto.offset.reset=earliest",
      "-c",
      "30",
      "-f",
      "%t %p %o\\n",
      "events",
    ]);
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(consumed.stdout.trim().split("\n")).toHaveLength(30);
    child.kill("SIGINT");
    const code = await exited;
    // A real-clock run cannot be repeated: on a failed verdict, show it and keep the run directory to read.
    if (code !== 0) {
      keepDirectory = true;
      console.error(`serve-cli: kcsim serve exited ${code}; its run directory is kept at ${dir}\n${stdout.join("\n")}`);
    }
    expect(code).toBe(0);
    const printed = stdout.join("\n");
    expect(printed).toContain("kcsim serve serve-mixed");
    expect(printed).toMatch(/ok {4}single-owner/);
    expect(printed).toContain("clients: client:prober, client:rdkafka");
    const history = readFileSync(join(dir, "run", "history.jsonl"), "utf8");
    // kcat's member and the two simulated ones were one group: the coordinator held the three at once.
    const owned = history
      .split("\n")
      .filter((line) => line.includes('"type":"member.owned"') && line.includes('"cause":"assigned"'))
      .map((line) => JSON.parse(line) as { actor: string; o: { owned: Record<string, number[]> } });
    const kcatOwned = owned.filter((e) => e.actor === "client:rdkafka" && (e.o.owned.events ?? []).length > 0);
    expect(kcatOwned.length).toBeGreaterThan(0);
    expect(owned.some((e) => e.actor === "member-1")).toBe(true);
    expect(existsSync(join(dir, "run", "report.html"))).toBe(true);
    expect(existsSync(join(dir, "run", "recording.jsonl"))).toBe(true);
  }, 120_000);
});
