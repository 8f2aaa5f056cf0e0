/** Escapes text for XML/HTML content and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"));
}

/** A number for an SVG attribute: at most `digits` decimals, no trailing zeros. */
export function num(value: number, digits = 3): string {
  const factor = 10 ** digits;
  return String(Math.round(value * factor) / factor);
}

/** A `<title>` child: the tooltip a browser shows on hover. */
export function title(text: string): string {
  return `<title>${escapeXml(text)}</title>`;
}
