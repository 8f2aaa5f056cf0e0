import { encodeValue } from "@kcsim/protocol";

/**
 * A value encoded with the protocol codec into an exact-size buffer of its
 * own, safe to transfer to another thread. (encodeValue may return a view
 * into a pooled slab: transferring that would detach the slab.)
 */
export function ownedBytes(value: unknown): Uint8Array<ArrayBuffer> {
  const bytes = encodeValue(value);
  const owned = new Uint8Array(bytes.length);
  owned.set(bytes);
  return owned;
}
