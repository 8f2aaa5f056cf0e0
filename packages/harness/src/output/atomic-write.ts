import writeFileAtomic from "write-file-atomic";

/**
 * Writes a whole file or nothing: the text goes to a temporary file beside
 * it, which is renamed over the target once complete (write-file-atomic),
 * so an interrupted run never leaves half a summary or half a report.
 */
export function writeAtomic(path: string, text: string): void {
  writeFileAtomic.sync(path, text, { fsync: false });
}
