#!/usr/bin/env node
// Extracts KafkaJS 2.2.4's protocol test fixtures (request bodies its own
// encoders wrote, response bodies its authors captured from real brokers)
// for the APIs and versions @kcsim/wire supports, as hex, into
// test/fixtures/kafkajs/<Api>.json. Run once; the output is committed.
//
// Usage: node scripts/extract-kafkajs-fixtures.mjs <git dir of a tulios/kafkajs clone>
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const TAG = "v2.2.4";
const gitDir = process.argv[2];
if (!gitDir) {
  console.error("usage: node scripts/extract-kafkajs-fixtures.mjs <kafkajs git dir>");
  process.exit(2);
}
const git = (...args) => execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });

// KafkaJS directory -> our API name and the versions we support.
const APIS = {
  apiVersions: ["ApiVersions", 0, 3],
  metadata: ["Metadata", 0, 6],
  createTopics: ["CreateTopics", 0, 4],
  findCoordinator: ["FindCoordinator", 0, 2],
  joinGroup: ["JoinGroup", 0, 5],
  syncGroup: ["SyncGroup", 0, 3],
  heartbeat: ["Heartbeat", 0, 3],
  leaveGroup: ["LeaveGroup", 0, 3],
  offsetCommit: ["OffsetCommit", 0, 7],
  offsetFetch: ["OffsetFetch", 0, 7],
  listOffsets: ["ListOffsets", 0, 3],
  fetch: ["Fetch", 4, 11],
  produce: ["Produce", 0, 7],
  initProducerId: ["InitProducerId", 0, 4],
};
const SKIP = new Set(["v4_response_mixed_formats.json"]); // 470 KB of legacy message sets

const outDir = join(import.meta.dirname, "..", "test", "fixtures", "kafkajs");
for (const [dir, [name, min, max]] of Object.entries(APIS)) {
  const prefix = `src/protocol/requests/${dir}/fixtures/`;
  const files = git("ls-tree", "--name-only", `${TAG}:${prefix}`).split("\n").filter(Boolean);
  const fixtures = {};
  for (const file of files.sort()) {
    const version = Number(/^v(\d+)_/.exec(file)?.[1]);
    if (!(version >= min && version <= max) || SKIP.has(file)) continue;
    const json = JSON.parse(git("show", `${TAG}:${prefix}${file}`));
    fixtures[file.replace(/\.json(\.json)?$/, "")] = Buffer.from(json.data).toString("hex");
  }
  const out = { source: `tulios/kafkajs ${TAG} ${prefix}*.json (Buffer JSON, here as hex)`, fixtures };
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(out, null, 1)}\n`);
  console.log(`${name}: ${Object.keys(fixtures).join(" ")}`);
}
