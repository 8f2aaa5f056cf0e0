import { gunzipSync, gzipSync } from "node:zlib";
import { WireError } from "../wire-error.js";
import type { Compression } from "./record-batch.js";

/**
 * The codecs this package reads and writes: none and gzip (node:zlib).
 * snappy, lz4 and zstd batches are rejected with `unsupported-compression`.
 */
export function decompress(compression: Compression, data: Uint8Array, maxOutputBytes: number): Uint8Array {
  if (compression === "none") return data;
  if (compression === "gzip") {
    try {
      // maxOutputLength bounds a decompression bomb before it is allocated.
      const out = gunzipSync(data, { maxOutputLength: maxOutputBytes });
      return new Uint8Array(out.buffer, out.byteOffset, out.length);
    } catch (error) {
      const tooLarge = error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
      const detail = error instanceof Error ? error.message : String(error);
      throw new WireError(
        tooLarge ? "invalid-length" : "malformed",
        `gzip records do not decompress within ${maxOutputBytes} bytes: ${detail}`,
      );
    }
  }
  throw new WireError("unsupported-compression", `${compression} record batches are not decoded here (none and gzip are)`);
}

export function compress(compression: Compression, data: Uint8Array): Uint8Array {
  if (compression === "none") return data;
  if (compression === "gzip") {
    const out = gzipSync(data);
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  }
  throw new WireError("unencodable", `${compression} record batches are not written here (none and gzip are)`);
}
