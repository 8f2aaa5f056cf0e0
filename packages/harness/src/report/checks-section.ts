import type { CheckView } from "./report-data.js";
import { escapeXml, num } from "./svg-markup.js";
import { formatSeconds } from "./time-format.js";

/** The verdict in one line: "all 10 checks hold" or "2 of 10 checks failed: a, b". */
export function verdictLine(checks: readonly CheckView[] | null): { ok: boolean; text: string } {
  if (checks === null) return { ok: true, text: "no checker verdicts (no summary.json)" };
  const failed = checks.filter((c) => !c.ok);
  if (failed.length === 0) return { ok: true, text: `all ${checks.length} checks hold` };
  return { ok: false, text: `${failed.length} of ${checks.length} checks failed: ${failed.map((c) => c.name).join(", ")}` };
}

/**
 * The checks section: every checker with its verdict and rule, then each
 * violation, numbered like its marker on the timeline, with the history
 * events it names (line of history.jsonl, time, actor, the event itself).
 */
export function renderChecksSection(checks: readonly CheckView[] | null): string {
  if (checks === null)
    return `<section id="checks"><h2>Checks</h2><p class="muted">This run directory has no summary.json: no checker verdicts.</p></section>`;
  const rows = checks.map((c) => {
    const count = c.violations.length;
    return `<tr class="check ${c.ok ? "ok" : "fail"}" data-check="${escapeXml(c.name)}"><td><span class="badge ${c.ok ? "ok" : "fail"}">${c.ok ? "ok" : "FAIL"}</span></td><td><code>${escapeXml(c.name)}</code></td><td>${escapeXml(c.description)}</td><td class="num">${count === 0 ? "" : c.violations.map((v) => `<a href="#v-${v.number}" class="flagnum" data-explain="${v.number}" title="why it happened">${v.number}</a>`).join(" ")}</td></tr>`;
  });
  const violations = checks.flatMap((c) =>
    c.violations.map((v) => {
      const events = v.events.map(
        (e) =>
          `<tr><td class="num">line ${e.line}</td><td class="num">${e.tUs === null ? "" : formatSeconds(e.tUs)}</td><td>${escapeXml(e.actor ?? "")}</td><td><code class="event">${escapeXml(e.text)}</code></td></tr>`,
      );
      return [
        `<article class="violation" id="v-${v.number}">`,
        `<h3><span class="flagnum">${v.number}</span> <code>${escapeXml(c.name)}</code> at ${formatSeconds(v.tUs)} <button type="button" data-goto="${num(v.tUs / 1000)}">show on timeline</button><button type="button" data-explain="${v.number}">why it happened</button></h3>`,
        `<p>${escapeXml(v.message)}</p>`,
        events.length === 0
          ? ""
          : `<table class="events"><thead><tr><th>history</th><th>time</th><th>actor</th><th>event</th></tr></thead><tbody>${events.join("")}</tbody></table>`,
        "</article>",
      ].join("");
    }),
  );
  return [
    `<section id="checks"><h2>Checks</h2>`,
    `<table class="checks"><thead><tr><th></th><th>check</th><th>rule</th><th>violations</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    violations.length === 0 ? "" : `<h2 class="sub">Violations</h2>${violations.join("")}`,
    "</section>",
  ].join("");
}
