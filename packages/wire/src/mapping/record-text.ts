/**
 * kcsim's simulated records carry keys and values as strings (tags the
 * checkers follow). Real record bytes map to a string losslessly: valid
 * UTF-8 is the text itself; anything else (or text that starts with the
 * escape) becomes the escape followed by base64. `recordBytes` inverts it.
 */
export const BINARY_RECORD_PREFIX = "\u0000b64:";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export function recordText(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  try {
    const text = strictUtf8.decode(bytes);
    if (!text.startsWith(BINARY_RECORD_PREFIX)) return text;
  } catch {
    // not UTF-8
  }
  return BINARY_RECORD_PREFIX + Buffer.from(bytes).toString("base64");
}

export function recordBytes(text: string | null): Uint8Array | null {
  if (text === null) return null;
  if (text.startsWith(BINARY_RECORD_PREFIX)) return new Uint8Array(Buffer.from(text.slice(BINARY_RECORD_PREFIX.length), "base64"));
  return new TextEncoder().encode(text);
}
