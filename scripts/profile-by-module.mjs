#!/usr/bin/env node
// Where a CPU profile's time went, by source module, for runs of kcsim's
// bundled code (packages/harness/bundle). A function-by-function profile of a
// kcsim run is flat (no function above a few percent), so the question that
// decides what to work on next is which part of the model or the harness the
// time is in. esbuild starts each source module in a bundle with a comment
// line naming it ("// packages/member/dist/consumer/commit-request-manager.js"),
// and a sampled function belongs to the module whose line precedes its own.
//
//   node --no-turbo-inlining --cpu-prof --cpu-prof-dir=DIR packages/harness/bundle/scenario-cpu.js scenarios/chaos-consumer.json
//   node scripts/profile-by-module.mjs [--top N] DIR/CPU.*.cpuprofile
//
// prints the self time of each group (a package; the harness by folder:
// harness/kernel, harness/router, harness/checkers, ...; a library under
// node_modules; Node's own code as node; V8's entries such as the garbage
// collector by name; native code), then its modules, each list cut at the N
// costliest (default 25).
//
// Profile without TurboFan's inlining (--no-turbo-inlining, as above) to
// attribute: with it, V8's sampling profiler at times bills a sample to the
// wrong function of code it inlined. A profile of the join storm billed
// 533 ms to PositionInitializer.request, which took about 100 ms in all
// when timed directly (7% of the run's samples); without inlining the whole
// module had 122 ms (1.4%).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const fail = (message) => {
  process.stderr.write(`profile-by-module: ${message}\n`);
  process.exit(2);
};

const args = process.argv.slice(2);
let top = 25;
if (args[0] === "--top") {
  const text = args[1] ?? "";
  if (!/^[1-9]\d*$/.test(text)) fail(`--top needs a whole number above 0, got '${text}'`);
  top = Number(text);
  args.splice(0, 2);
}
if (args.length !== 1) fail("usage: node scripts/profile-by-module.mjs [--top N] PROFILE.cpuprofile");
const path = args[0];

let profile;
try {
  profile = JSON.parse(readFileSync(path, "utf8"));
} catch (error) {
  fail(`${path}: ${error instanceof SyntaxError ? "not JSON" : error.code === "ENOENT" ? "no such file" : error.message}`);
}
if (!Array.isArray(profile?.nodes) || !Array.isArray(profile.samples) || !Array.isArray(profile.timeDeltas))
  fail(`${path}: not a V8 CPU profile (nodes, samples and timeDeltas expected)`);

/** The module starts of each bundle file read so far: [line, module] ascending, or null when the file is not a bundle. */
const starts = new Map();
const MARK = /^\/\/ ((?:packages|node_modules)\/.*)$/;
function startsOf(url) {
  let known = starts.get(url);
  if (known !== undefined) return known;
  known = null;
  try {
    const marks = [];
    readFileSync(fileURLToPath(url), "utf8")
      .split("\n")
      .forEach((line, index) => {
        const mark = line.match(MARK);
        if (mark !== null) marks.push([index, mark[1]]);
      });
    if (marks.length > 0) known = marks;
  } catch {
    // Not a file here (a profile from another machine, a data: URL): the file's own name stands for it.
  }
  starts.set(url, known);
  return known;
}

/** Functions without a script: V8's own entries, "(garbage collector)" and the like, and native code (Node's bindings). */
const native = (functionName) => (functionName.startsWith("(") ? functionName : `native ${functionName || "(anonymous)"}`);

/** The source module a function belongs to (a library's file by its path in the library, or a file's name, outside a bundle). */
function moduleOf({ url, lineNumber, functionName }) {
  if (url === "") return native(functionName);
  if (url.startsWith("node:")) return url;
  const marks = url.startsWith("file:") ? startsOf(url) : null;
  const library = url.lastIndexOf("/node_modules/");
  if (marks === null && library >= 0) return url.slice(library + 1);
  const name = url.slice(url.lastIndexOf("/") + 1);
  if (marks === null) return name;
  let found = `${name} (before its first module)`;
  for (let lo = 0, hi = marks.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >> 1;
    if (marks[mid][0] <= lineNumber) {
      found = marks[mid][1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A module's group: its package (the harness by folder), its library, node, or the V8 entry itself. */
function groupOf(module) {
  const parts = module.split("/");
  if (parts[0] === "packages") return parts[1] === "harness" && parts.length > 4 ? `harness/${parts[3]}` : parts[1];
  if (parts[0] === "node_modules") return parts[1]?.startsWith("@") ? `${parts[1]}/${parts[2]}` : parts[1];
  if (module.startsWith("node:")) return "node";
  if (module.startsWith("native ")) return "native code";
  return module;
}

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const byModule = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const node = nodes.get(id);
  if (node === undefined) fail(`${path}: sample ${i} names node ${id}, which the profile does not have`);
  const micros = profile.timeDeltas[i] ?? 0;
  total += micros;
  const module = moduleOf(node.callFrame);
  byModule.set(module, (byModule.get(module) ?? 0) + micros);
});
const byGroup = new Map();
for (const [module, micros] of byModule) {
  const group = groupOf(module);
  byGroup.set(group, (byGroup.get(group) ?? 0) + micros);
}

const ms = (micros) => Math.round(micros / 1000).toLocaleString("en-US");
const share = (micros) => `${total === 0 ? "0.0" : ((100 * micros) / total).toFixed(1)}%`;
/** The `top` costliest entries, one row each (ties by name), and one line for the rest. */
const topRows = (entries, what) => {
  const sorted = [...entries].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = sorted.slice(0, top);
  const width = Math.max(...shown.map(([, micros]) => ms(micros).length));
  const lines = shown.map(([name, micros]) => `  ${ms(micros).padStart(width)} ms  ${share(micros).padStart(6)}  ${name}`);
  const rest = sorted.slice(top);
  if (rest.length === 0) return lines;
  const restMicros = rest.reduce((sum, [, micros]) => sum + micros, 0);
  return [...lines, `  and ${rest.length} more ${what}: ${ms(restMicros)} ms, ${share(restMicros)}`];
};
const lines = [`self time by group (${ms(total)} ms sampled)`, ...topRows(byGroup, "groups"), "by module", ...topRows(byModule, "modules")];
process.stdout.write(`${lines.join("\n")}\n`);
