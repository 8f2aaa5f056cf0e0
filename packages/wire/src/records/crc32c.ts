import { crc32c as nativeCrc32c } from "@node-rs/crc32";

/**
 * CRC-32C (Castagnoli), what record batches v2 carry over everything from
 * their attributes to their end. @node-rs/crc32 computes it with SSE4.2 /
 * ARMv8 instructions (prebuilt binaries inside its npm packages).
 */
export function crc32c(bytes: Uint8Array): number {
  return nativeCrc32c(bytes) >>> 0;
}
