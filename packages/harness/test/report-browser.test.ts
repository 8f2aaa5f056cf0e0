/// <reference lib="dom" />
// page.evaluate callbacks run in the browser.
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BrowserContext } from "playwright-core";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";
import { openReportBrowser } from "./browser.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe("the HTML report in headless Chromium", () => {
  it("renders the m10-join report without console errors and shows the ownership Gantt chart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-report-browser-"));
    const out = join(dir, "run");
    const { summary } = await runScenario(loadScenarioFile(join(root, "scenarios/m10-join.json")), {
      host: "inline",
      out,
      replayCommand: "pnpm kcsim run scenarios/m10-join.json --seed 1 --host inline",
    });
    const report = join(out, "report.html");
    expect(statSync(report).size).toBeLessThan(5 * 1024 * 1024);

    let context: BrowserContext | undefined;
    try {
      const browser = await openReportBrowser(dir, { width: 1500, height: 1300 });
      context = browser.context;
      const { page, problems } = browser;
      await page.goto(pathToFileURL(report).href, { waitUntil: "load" });

      // The Gantt chart: one row per partition of T1, every one owned at some point, bars of all ten members.
      expect(await page.locator("#tl-plot .ts g.prow").count()).toBe(90);
      expect(await page.locator("#tl-plot .ts g.prow:has(rect.own)").count()).toBe(90);
      expect(await page.locator("#tl-plot .ts g.prow[data-partition='T1-89']").count()).toBe(1);
      for (let member = 0; member < 10; member++)
        expect(await page.locator(`#tl-plot rect.own.m${member}`).count(), `member ${member + 1}`).toBeGreaterThan(0);
      // The tenth member joins at 60 s and takes nine partitions.
      expect(await page.locator("#tl-plot rect.own.m9").count()).toBe(9);
      expect(await page.locator("#tl-plot .ts g.mrow").count()).toBe(10);
      expect((await page.locator("#tl-plot").boundingBox())?.width).toBeGreaterThan(1000);
      // The page script ran: it drew the time axis.
      expect(await page.locator("#tl-ticks g.tick").count()).toBeGreaterThan(5);

      // Every checker is listed, with ok.
      const names = Object.keys(summary.checks);
      expect(names.length).toBeGreaterThan(5);
      expect(await page.locator("#checks tr.check").count()).toBe(names.length);
      for (const name of names) {
        const row = page.locator(`#checks tr.check[data-check="${name}"]`);
        expect(await row.getAttribute("class"), name).toBe("check ok");
        expect(await row.locator(".badge").textContent(), name).toBe("ok");
      }
      expect(await page.locator("header .verdict").textContent()).toBe(`all ${names.length} checks hold`);
      expect(await page.locator("#metrics .card").count()).toBeGreaterThan(10);

      // Zooming in doubles the plot.
      const before = Number(await page.locator("#tl-plot").getAttribute("width"));
      await page.click("button[data-zoom='in']");
      expect(Number(await page.locator("#tl-plot").getAttribute("width"))).toBeGreaterThan(before * 1.9);
      await page.click("button[data-zoom='fit']");
      expect(Number(await page.locator("#tl-plot").getAttribute("width"))).toBe(before);

      const png = join(dir, "report.png");
      await page.screenshot({ path: png, fullPage: true });
      const image = readFileSync(png);
      expect([...image.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
      expect(image.readUInt32BE(16)).toBeGreaterThanOrEqual(1500);
      expect(image.readUInt32BE(20)).toBeGreaterThan(1300);
      expect(image.length).toBeGreaterThan(50_000);
      expect(problems).toEqual([]);
    } finally {
      await context?.close();
    }
  });

  it("marks the stale-reconciliation run's connection break on member-1's row, with its tooltip, and in the violation's chain", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-report-connections-"));
    const out = join(dir, "run");
    await runScenario(loadScenarioFile(join(root, "scenarios/stale-reconciliation.json")), { host: "inline", out });

    let context: BrowserContext | undefined;
    try {
      const browser = await openReportBrowser(dir, { width: 1500, height: 1100 });
      context = browser.context;
      const { page, problems } = browser;
      // Opened on the second around the break.
      await page.goto(`${pathToFileURL(join(out, "report.html")).href}#from=29.8&to=31.2`, { waitUntil: "load" });

      // member-1's heartbeat at 30.185 s broke its coordinator connection: one mark on its row, and the span it was down.
      const mark = page.locator("#tl-plot .marks g.mrow[data-member='member-1'] g.pt.conn-break");
      expect(await mark.count()).toBe(1);
      expect(await page.locator("#tl-plot .marks g.pt.conn").count()).toBe(1);
      expect(await page.locator("#tl-plot .ts g.mrow[data-member='member-1'] rect.conn-down").count()).toBe(1);
      // Hovered where it is drawn, it is what the pointer is on (nothing covers it), and its tooltip tells the story.
      await mark.hover();
      const box = await mark.boundingBox();
      expect(box?.width).toBeGreaterThan(5);
      const hit = await page.evaluate(
        ([x, y]) => {
          const element = document.elementFromPoint(x as number, y as number);
          return element?.closest("g.pt")?.querySelector("title")?.textContent ?? null;
        },
        [(box?.x ?? 0) + (box?.width ?? 0) / 2, (box?.y ?? 0) + (box?.height ?? 0) / 2],
      );
      expect(hit).toMatch(
        /^30\.185 s · member-1 → coordinator-0 "coordinator" \(generation \d+\) · broken by heartbeat-break · member-1 noticed at 30\.\d{3} s, coordinator-0 at 30\.\d{3} s · 1 message lost with it · ready again at 30\.\d{3} s/,
      );
      expect(await page.locator(".legend", { hasText: "connection broken by a fault" }).count()).toBe(1);

      // The double owner's chain starts before the break and shows it: drawn on member-1's lane and listed.
      await page.click("#tl-axis .flag[data-explain='1']", { force: true });
      const section = page.locator("#xpanel section.explain[data-v='1']");
      expect(await section.isVisible()).toBe(true);
      const chainMark = section.locator("svg.xsvg g.xconn.xc-break");
      expect(await chainMark.count()).toBe(1);
      await chainMark.locator("path").click();
      const row = section.locator("tr.xhl");
      expect(await row.getAttribute("class")).toContain("xk-conn");
      expect(await row.textContent()).toMatch(/member-1connection "coordinator" member-1 → coordinator-0 broken by heartbeat-break/);

      // The metrics count the connections per kind of client.
      const table = page.locator("#metrics table.connections");
      expect(await table.locator("tbody tr").count()).toBe(1);
      expect(await table.locator("tbody tr td").first().textContent()).toBe("consumer");
      expect(problems).toEqual([]);
    } finally {
      await context?.close();
    }
  }, 120_000);
});
