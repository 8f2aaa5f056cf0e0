/**
 * The byte lengths msgpackr gives scalars and collection headers, with this
 * codec's options (no structs: ids 0x40-0x7f are record ids). Shared by the
 * size pass's generic walk and the sizers compiled from message schemas.
 */

export const lengthHeader = (n: number): number => (n < 0x10 ? 1 : n < 0x10000 ? 3 : 5);
export const binHeader = (n: number): number => (n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

export function stringSize(value: string): number {
  const n = value.length;
  let bytes = 0;
  if (n < 0x40) {
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c < 0x80) bytes++;
      else if (c < 0x800) bytes += 2;
      else if ((c & 0xfc00) === 0xd800 && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        i++;
        bytes += 4;
      } else bytes += 3; // a lone surrogate becomes U+FFFD, three bytes
    }
  } else {
    bytes = Buffer.byteLength(value, "utf8");
  }
  return bytes + (bytes < 0x20 ? 1 : bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5);
}

export function numberSize(value: number): number {
  // msgpackr without structs: ids 0x40-0x7f are record ids, so a positive fixint stops at 0x3f.
  if (value >>> 0 === value) return value < 0x40 ? 1 : value < 0x100 ? 2 : value < 0x10000 ? 3 : 5;
  if (value >> 0 === value) return value >= -0x20 ? 1 : value >= -0x80 ? 2 : value >= -0x8000 ? 3 : 5;
  return 9; // float64
}
