#!/usr/bin/env node
// Installs the Debian packages that the test suite drives for real, when a
// command they provide is missing: the report's browser test needs chromium,
// the fleet-hunting tests redis-server, the real-client tests kcat. A bare
// machine has none of them, and `pnpm test` must pass there by itself, so the
// test script runs this first. It does nothing when every command is present.
//
// Usage: node scripts/system-packages.mjs [--check]
//   --check  only report what is missing (exit 1 if anything is)
import { execFileSync, spawnSync } from "node:child_process";

/** command on PATH -> the Debian package that provides it */
const NEEDED = [
  { command: "chromium", pkg: "chromium", for: "the HTML report's browser test" },
  { command: "redis-server", pkg: "redis-server", for: "hunting on a queue (BullMQ)" },
  { command: "kcat", pkg: "kcat", for: "a librdkafka client against kcsim serve" },
];

const has = (command) => spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;

const missing = NEEDED.filter((need) => !has(need.command));
if (missing.length === 0) process.exit(0);
if (process.argv.includes("--check")) {
  for (const need of missing) console.error(`missing: ${need.command} (apt-get install ${need.pkg}), for ${need.for}`);
  process.exit(1);
}

const root = typeof process.getuid === "function" && process.getuid() === 0;
if (!root && !has("sudo")) {
  const list = missing.map((need) => need.pkg).join(" ");
  console.error(`kcsim: the tests need Debian packages that are not installed and this user cannot install them: apt-get install ${list}`);
  process.exit(1);
}
const run = (args) => {
  const [command, argv] = root ? ["apt-get", args] : ["sudo", ["apt-get", ...args]];
  execFileSync(command, argv, { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
};
const pkgs = missing.map((need) => need.pkg);
console.error(`kcsim: installing ${pkgs.join(", ")} from Debian for the tests (${missing.map((need) => need.for).join("; ")})`);
run(["update", "-qq"]);
run(["install", "-y", "-qq", ...pkgs]);
