import type { HuntRunResult } from "../hunt/hunt-task.js";
import type { RunSummary } from "./run-scenario.js";

/** Whether XML 1.0 can carry this code point (tab, newline, carriage return, and the printable planes). */
const xmlChar = (code: number) =>
  code === 0x09 ||
  code === 0x0a ||
  code === 0x0d ||
  (code >= 0x20 && code <= 0xd7ff) ||
  (code >= 0xe000 && code <= 0xfffd) ||
  code >= 0x10000;

/** Text for XML content and attributes; characters XML 1.0 cannot carry become U+FFFD. */
function xml(text: string): string {
  return Array.from(text, (c) => (xmlChar(c.codePointAt(0) ?? 0) ? c : "\uFFFD"))
    .join("")
    .replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&apos;"));
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

interface Case {
  readonly name: string;
  readonly classname: string;
  readonly timeMs: number;
  /** null: passed. */
  readonly failure: { readonly type: string; readonly message: string; readonly details: string } | null;
}

function suite(name: string, cases: readonly Case[], timeMs: number, properties: Readonly<Record<string, string>>): string {
  const failures = cases.filter((c) => c.failure !== null).length;
  const props = Object.entries(properties)
    .map(([key, value]) => `      <property name="${xml(key)}" value="${xml(value)}"/>`)
    .join("\n");
  const body = cases.map((c) => {
    const open = `    <testcase classname="${xml(c.classname)}" name="${xml(c.name)}" time="${seconds(c.timeMs)}"`;
    if (c.failure === null) return `${open}/>`;
    return `${open}>\n      <failure type="${xml(c.failure.type)}" message="${xml(c.failure.message)}">${xml(c.failure.details)}</failure>\n    </testcase>`;
  });
  return [
    `  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds(timeMs)}">`,
    "    <properties>",
    props,
    "    </properties>",
    ...body,
    "  </testsuite>",
  ].join("\n");
}

function document(name: string, suites: readonly string[], tests: number, failures: number, timeMs: number): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(name)}" tests="${tests}" failures="${failures}" errors="0" time="${seconds(timeMs)}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}

/**
 * A run's verdict as JUnit XML (`kcsim run --junit FILE`): one test suite
 * for the run (scenario, seed, host, history hash and the replay command as
 * properties) and one test case per checker, failed with its violations.
 */
export function runJunitXml(summary: RunSummary, descriptions: ReadonlyMap<string, string>): string {
  const classname = `kcsim.${summary.scenario}`;
  const cases: Case[] = Object.entries(summary.checks).map(([check, result]) => ({
    name: check,
    classname,
    timeMs: 0,
    failure: result.ok
      ? null
      : {
          type: check,
          message: `${descriptions.get(check) ?? check}: ${result.violations[0]?.message ?? "failed"}`,
          details: [
            ...result.violations.map((v) => `at ${v.t} us: ${v.message}`),
            ...(summary.replay === "" ? [] : [`replay: ${summary.replay}`]),
          ].join("\n"),
        },
  }));
  const failures = cases.filter((c) => c.failure !== null).length;
  const name = `kcsim run ${summary.scenario} seed ${summary.seed}`;
  const properties = {
    scenario: summary.scenario,
    seed: String(summary.seed),
    host: summary.host,
    historyHash: summary.historyHash,
    replay: summary.replay,
  };
  return document(name, [suite(name, cases, summary.metrics.wallMs, properties)], cases.length, failures, summary.metrics.wallMs);
}

/**
 * A hunt's verdicts as JUnit XML (`kcsim hunt --junit FILE`): one test case
 * per seed run, failed with the checkers that failed and the command that
 * replays it.
 */
export function huntJunitXml(
  label: string,
  results: readonly HuntRunResult[],
  replays: ReadonlyMap<number, string>,
  elapsedMs: number,
): string {
  const classname = `kcsim.hunt.${label}`;
  const cases: Case[] = [...results]
    .sort((a, b) => a.seed - b.seed)
    .map((result) => {
      const replay = replays.get(result.seed);
      return {
        name: `seed ${result.seed}`,
        classname,
        timeMs: result.wallMs,
        failure:
          result.failures.length === 0
            ? null
            : {
                type: result.failures.map((f) => f.check).join(","),
                message: result.failures.map((f) => `${f.check}: ${f.message}`).join("; "),
                details: [
                  ...result.failures.map((f) => `${f.check} at ${f.t} us: ${f.message}`),
                  `history hash ${result.historyHash}`,
                  ...(replay === undefined ? [] : [`replay: ${replay}`]),
                ].join("\n"),
              },
      };
    });
  const failures = cases.filter((c) => c.failure !== null).length;
  const name = `kcsim hunt ${label}`;
  return document(
    name,
    [suite(name, cases, elapsedMs, { scenario: label, runs: String(cases.length) })],
    cases.length,
    failures,
    elapsedMs,
  );
}
