import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel } from "kafkajs";
import { afterEach, expect, it } from "vitest";
import { type RunningCluster, startCluster } from "../src/index.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "packages/harness/bundle/cli.js");

let cluster: RunningCluster | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await cluster?.stop();
  cluster = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("crashes and restarts a simulated coordinator when the test says so; the history tells it, the recording replays it, and a wrong actor is a one-line error", async () => {
  const out = mkdtempSync(join(tmpdir(), "kcsim-serve-nemesis-"));
  dirs.push(out);
  cluster = await startCluster({ out: join(out, "run") });
  const kafka = new Kafka({ clientId: "orders-app", brokers: [...cluster.brokers], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: "orders", messages: [{ key: "before", value: "{}" }] });

  // Neither a real client nor a name the cluster does not have can be crashed; the message lists what can.
  await expect(cluster.nemesis("client:orders-app", "crash")).rejects.toThrow(
    /^nemesis: crash client:orders-app: no simulated actor 'client:orders-app' \(.*coordinator-0.*\)$/,
  );
  await expect(cluster.nemesis("coordinator-9", "pause")).rejects.toThrow(
    /^nemesis: pause coordinator-9: no simulated actor 'coordinator-9'/,
  );
  await expect(cluster.nemesis("coordinator-0", "explode" as "crash")).rejects.toThrow(
    /^nemesis: explode coordinator-0: not a process fault \(crash, restart, pause, resume\)$/,
  );

  await cluster.nemesis("coordinator-0", "crash");
  await producer.send({ topic: "orders", messages: [{ key: "while-down", value: "{}" }] });
  await cluster.nemesis("coordinator-0", "restart");
  await producer.send({ topic: "orders", messages: [{ key: "after", value: "{}" }] });
  await producer.disconnect();

  const running = cluster;
  const verdicts = await running.stop();
  cluster = null;
  expect(verdicts.failures).toEqual([]);
  await expect(running.nemesis("coordinator-0", "restart")).rejects.toThrow(/^nemesis: restart coordinator-0: the cluster is stopped$/);

  const life = readFileSync(join(out, "run", "history.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.includes('"ev":"life"') && line.includes('"actor":"coordinator-0"'))
    .map((line) => (JSON.parse(line) as { what: string }).what);
  expect(life).toEqual(expect.arrayContaining(["crash", "restart"]));
  expect(life.indexOf("crash")).toBeLessThan(life.lastIndexOf("restart"));

  const replayed = spawnSync(process.execPath, [cli, "replay", join(out, "run"), "--json"], { cwd: root, encoding: "utf8" });
  expect(replayed.status, replayed.stderr).toBe(0);
  expect((JSON.parse(replayed.stdout) as { equal: boolean }).equal).toBe(true);
}, 120_000);
