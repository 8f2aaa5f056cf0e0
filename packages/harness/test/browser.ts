import { existsSync } from "node:fs";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

/** Debian's chromium package (`pnpm test` installs it): playwright-core downloads no browser. */
export const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface ReportBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Console errors and warnings, page errors, and any request that leaves the file system. */
  readonly problems: string[];
}

/** Opens headless Chromium with a profile under `dir`, a page, and a list of everything that went wrong on it. */
export async function openReportBrowser(dir: string, viewport: { width: number; height: number }): Promise<ReportBrowser> {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium`).toBe(true);
  const context = await chromium.launchPersistentContext(join(dir, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("request", (request) => {
    if (!request.url().startsWith("file:") && request.url() !== "about:blank") problems.push(`request to ${request.url()}`);
  });
  return { context, page, problems };
}
