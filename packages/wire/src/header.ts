import type { Reader } from "./io/reader.js";
import type { Writer } from "./io/writer.js";
import { WireError } from "./wire-error.js";

/** Kafka's request header (v1; v2 adds a tagged-field section). */
export interface RequestHeader {
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** Null on the wire is read as "" (Kafka's RequestHeader.parse does the same). */
  readonly clientId: string;
}

/** API key of ApiVersions, whose response header is always v0. */
export const API_VERSIONS_KEY = 18;

/**
 * Reads the header fields after apiKey/apiVersion/correlationId: the client
 * id (an INT16-length string even in header v2) and, in v2, the tagged
 * fields (none are defined; all are skipped).
 */
export function readHeaderRest(reader: Reader, headerVersion: 1 | 2): string {
  const at = reader.offset;
  const length = reader.int16();
  let clientId = "";
  if (length >= 0) clientId = reader.utf8(length, "client id");
  else if (length !== -1) throw new WireError("invalid-length", `client id length ${length} at offset ${at} is negative`, { offset: at });
  if (headerVersion === 2) {
    const tagsAt = reader.offset;
    const count = reader.uvarint();
    if (count * 2 > reader.remaining)
      throw new WireError("invalid-length", `${count} header tagged fields at offset ${tagsAt}, only ${reader.remaining} bytes left`);
    for (let i = 0; i < count; i++) {
      reader.uvarint();
      reader.skip(reader.uvarint(), "header tagged field");
    }
  }
  return clientId;
}

export function writeRequestHeader(writer: Writer, header: RequestHeader, headerVersion: 1 | 2): void {
  writer.int16(header.apiKey).int16(header.apiVersion).int32(header.correlationId);
  writer.utf8(header.clientId, (n) => {
    if (n > 0x7fff) throw new WireError("unencodable", `a client id of ${n} bytes exceeds 32767`);
    writer.int16(n);
  });
  if (headerVersion === 2) writer.uvarint(0);
}
