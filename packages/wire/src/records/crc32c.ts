import { createRequire } from "node:module";

type Crc32c = (bytes: Uint8Array) => number;

let nativeCrc32c: Crc32c | null = null;

/**
 * CRC-32C (Castagnoli), what record batches v2 carry over everything from
 * their attributes to their end. @node-rs/crc32 computes it with SSE4.2 /
 * ARMv8 instructions (prebuilt binaries inside its npm packages). It is
 * loaded at the first checksum, not with this package: a simulation
 * without real clients never computes one, and loading the native code
 * is a measurable part of a short `kcsim run`.
 */
export function crc32c(bytes: Uint8Array): number {
  nativeCrc32c ??= (createRequire(import.meta.url)("@node-rs/crc32") as { crc32c: Crc32c }).crc32c;
  return nativeCrc32c(bytes) >>> 0;
}
