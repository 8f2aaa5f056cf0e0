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
});
