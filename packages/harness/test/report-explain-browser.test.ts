/// <reference lib="dom" />
// page.evaluate callbacks run in the browser.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { runScenario } from "../src/run/run-scenario.js";
import { validateScenario } from "../src/scenario/load-scenario.js";
import { openReportBrowser } from "./browser.js";

/**
 * A run that fails single-owner in under a second of virtual time: ten
 * KIP-848 members join a 60-partition group under the planted bug
 * assign-before-revoke (the coordinator frees a partition before its old
 * owner let go), with a message fault, a network partition and process
 * pauses so that every kind of lane has something on it.
 */
const SCENARIO = {
  name: "double-owner",
  seed: 1,
  durationMs: 10_000,
  cluster: { coordinators: 1, topics: [{ name: "T1", partitions: 60 }] },
  groups: [
    {
      groupId: "g1",
      protocol: "consumer",
      members: 10,
      subscription: ["T1"],
      staggerMs: 100,
      app: { processingMsPerRecord: 1, revokeCallbackMs: 500 },
      source: { kind: "synthetic", recordsPerSecondPerPartition: 10 },
    },
  ],
  faults: [
    {
      name: "slow-heartbeats",
      types: ["ConsumerGroupHeartbeatRequest"],
      delay: { dist: "uniform", minMs: 1, maxMs: 30 },
      startMs: 2000,
      endMs: 4000,
    },
  ],
  partitions: [{ name: "split", a: ["member-9"], b: ["coordinator-0"], direction: "two-way", startMs: 6000, endMs: 6500 }],
  nemesis: [
    { atMs: 7000, actor: "member-3", action: "pause" },
    { atMs: 7500, actor: "member-3", action: "resume" },
    { atMs: 8000, actor: "coordinator-0", action: "pause" },
    { atMs: 8200, actor: "coordinator-0", action: "resume" },
  ],
  bugs: ["assign-before-revoke"],
};

/** Where an element is on screen, or null when it is not rendered. */
const box = async (page: Page, selector: string) => page.locator(selector).first().boundingBox();

describe("the report explains a violation (headless Chromium)", () => {
  it("hovers every lane, zooms to 100x with the labels pinned, and opens the chain behind a double owner naming both owners", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kcsim-report-explain-"));
    const out = join(dir, "run");
    const { summary } = await runScenario(validateScenario(SCENARIO, "double-owner"), { host: "inline", out });
    const violation = summary.checks["single-owner"]?.violations[0];
    expect(violation?.message).toMatch(/^T1-\d+ owned by member-\d+ and member-\d+ at once$/);
    const owners = (violation?.message ?? "").match(/member-\d+/g) ?? [];
    expect(owners).toHaveLength(2);

    let context: BrowserContext | undefined;
    try {
      const browser = await openReportBrowser(dir, { width: 1400, height: 1000 });
      context = browser.context;
      const { page, problems } = browser;
      const url = pathToFileURL(join(out, "report.html")).href;
      await page.goto(url, { waitUntil: "load" });

      // Every kind of lane, hovered: faults, processes, the group's state, epochs, unowned partitions,
      // records/s and lag, the members, the partitions, and the legend's member keys.
      const lanes = [
        "#tl-plot .ts g.frow[data-fault='slow-heartbeats']",
        "#tl-plot .ts g.frow[data-fault='split']",
        "#tl-plot .ts g.frow[data-process='coordinator-0']",
        ...["state", "epochs", "unowned", "throughput", "lag"].map((chart) => `#tl-plot .ts g.grow[data-chart='${chart}']`),
        "#tl-plot .ts g.mrow[data-member='member-3']",
        "#tl-plot .ts g.prow",
        ".legend .key[data-colour]",
      ];
      for (const lane of lanes) {
        expect(await page.locator(lane).count(), lane).toBeGreaterThan(0);
        await page.locator(lane).first().hover({ force: true });
      }
      // Hovering a member's row picks out its partitions and fades the others (no selector error).
      await page.locator(`#tl-plot .ts g.mrow[data-member='${owners[0]}']`).hover({ force: true });
      expect(await page.locator("#tl-plot.pick").count()).toBe(1);
      expect(await page.locator("#tl-plot rect.own.on").count()).toBeGreaterThan(0);
      await page.mouse.move(5, 5);
      expect(await page.locator("#tl-plot.pick").count()).toBe(0);

      // The overlap lasts a fraction of the run, yet it is drawn at least 3 px wide.
      const conflict = await box(page, "#tl-plot rect.conflict");
      expect(conflict?.width).toBeGreaterThanOrEqual(2.9);

      // Zoom to 100x and over to the far right: the row labels stay pinned at the left and readable.
      for (let i = 0; i < 12 && Number((await page.locator("#tl-zoom").textContent())?.replace(/[^\d.]/g, "")) < 100; i++)
        await page.click("button[data-zoom='in']");
      expect(Number((await page.locator("#tl-zoom").textContent())?.replace(/[^\d.]/g, ""))).toBeGreaterThanOrEqual(100);
      await page.evaluate(() => {
        const scroller = document.getElementById("tl-scroll") as HTMLElement;
        scroller.scrollLeft = scroller.scrollWidth;
      });
      const scroller = await box(page, "#tl-scroll");
      const labels = await box(page, "svg.tl-labels");
      // (the scroller's 1 px border lies between them)
      expect(Math.abs((labels?.x ?? -1e9) - (scroller?.x ?? 0))).toBeLessThanOrEqual(2);
      const owner = owners[1];
      if (owner === undefined) throw new Error("the conflict names no second owner");
      const label = page.locator("svg.tl-labels text", { hasText: owner }).first();
      await label.scrollIntoViewIfNeeded();
      const labelBox = await label.boundingBox();
      expect(labelBox?.x).toBeGreaterThanOrEqual(scroller?.x ?? 0);
      expect((labelBox?.x ?? 1e9) + (labelBox?.width ?? 0)).toBeLessThanOrEqual((scroller?.x ?? 0) + 212);
      expect(await label.isVisible()).toBe(true);

      // Click the violation's flag: the panel explains it, naming both owners, with the chain drawn and listed.
      await page.click("#tl-axis .flag[data-explain='1']", { force: true });
      const section = page.locator("#xpanel section.explain[data-v='1']");
      expect(await page.locator("#xpanel").isVisible()).toBe(true);
      expect(await section.isVisible()).toBe(true);
      const who = await section.locator(".xwho").textContent();
      for (const owner of owners) expect(who).toContain(owner);
      for (const owner of owners) expect(await section.locator("svg.xsvg text.xlabel", { hasText: owner }).count(), owner).toBe(1);
      expect(await section.locator("svg.xsvg text.xlabel", { hasText: "coordinator-0" }).count()).toBe(1);
      expect(await section.locator("svg.xsvg .xmsg").count()).toBeGreaterThan(3);
      expect(await section.locator("tr.xk-send details").count()).toBeGreaterThan(3);
      expect(await section.locator("tr.xk-log").count()).toBeGreaterThan(0);
      expect(await section.locator("tr.xk-obs", { hasText: "gc.target" }).count()).toBeGreaterThan(0);
      // The payload of a message is there to read.
      await section.locator("tr.xk-send details summary").first().click();
      expect(await section.locator("tr.xk-send details code").first().textContent()).toMatch(/^\{"type":"/);
      // A mark on the chain finds its row.
      await section.locator("svg.xsvg circle.xev").first().click({ force: true });
      expect(await section.locator("tr.xhl").count()).toBe(1);

      // The view lives in the URL: opening it again restores the zoom and the panel.
      const link = page.url();
      expect(link).toMatch(/#.*from=[\d.]+&to=[\d.]+&zoom=[\d.]+.*v=1/);
      await page.goto("about:blank");
      await page.goto(link, { waitUntil: "load" });
      expect(await page.locator("#xpanel section.explain[data-v='1']").isVisible()).toBe(true);
      expect(Number((await page.locator("#tl-zoom").textContent())?.replace(/[^\d.]/g, ""))).toBeGreaterThan(50);
      await page.click("#xclose");
      expect(await page.locator("#xpanel").isVisible()).toBe(false);

      // Filters: one member keeps its row and the partitions it ever owned; a topic keeps its partitions.
      // (The last member to join owned only some partitions; the first ones owned every partition at the start.)
      const late = "member-10";
      await page.selectOption("#f-member", late);
      const visibleRows = (selector: string) => page.locator(`${selector}:not([display='none'])`).count();
      expect(await visibleRows("#tl-plot .ts g.mrow")).toBe(1);
      const owned = await visibleRows("#tl-plot .ts g.prow");
      expect(owned).toBeGreaterThan(0);
      expect(owned).toBeLessThan(60);
      expect(owned).toBe(await page.locator("#tl-plot .ts g.prow[data-owners~='member-10']").count());
      expect(page.url()).toContain(`member=${late}`);
      await page.selectOption("#f-member", "");
      await page.selectOption("#f-topic", "T1");
      expect(await visibleRows("#tl-plot .ts g.prow")).toBe(60);
      expect(await visibleRows("#tl-plot .ts g.mrow")).toBe(10);

      expect(problems).toEqual([]);
    } finally {
      await context?.close();
    }
  }, 120_000);
});
