import { join } from "node:path";
import { DEFAULT_REGISTRY } from "../actors/registry.js";
import type { HistoryEvent } from "../history/history-event.js";
import type { ActorRegistry } from "../kernel/actor-registry.js";
import { writeAtomic } from "../output/atomic-write.js";
import type { ReportData } from "./report-data.js";
import { extractReport, type ReportInputs } from "./report-extractor.js";
import { renderReportHtml } from "./report-html.js";
import { readRunDirectory } from "./run-directory.js";

/** The report's file name in a run directory. */
export const REPORT_FILE = "report.html";

export interface WrittenReport {
  readonly path: string;
  readonly bytes: number;
  readonly data: ReportData;
}

function write(dir: string, data: ReportData): WrittenReport {
  const html = renderReportHtml(data);
  const path = join(dir, REPORT_FILE);
  writeAtomic(path, html);
  return { path, bytes: Buffer.byteLength(html), data };
}

/** Writes report.html into a run directory from a run that just finished (its events still at hand: an array, or its log, read twice). */
export function writeRunReport(dir: string, inputs: ReportInputs, events: Iterable<HistoryEvent>): WrittenReport {
  return write(dir, extractReport(events, inputs));
}

/** Writes report.html into an existing run directory, from the files in it (`kcsim report DIR`). */
export async function reportRunDirectory(dir: string, registry: ActorRegistry | null = DEFAULT_REGISTRY): Promise<WrittenReport> {
  return write(dir, await readRunDirectory(dir, registry));
}
