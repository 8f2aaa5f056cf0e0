/**
 * A trie of object key sequences (msgpackr's "transitions"): the node an
 * object's keys lead to stands for the object's shape. Objects made in one
 * place take the same path every time, so each node remembers the last key
 * followed from it and where it led, and a walk rarely looks into a Map.
 */
export interface KeyTrieNode<N> {
  readonly next: Map<string, N>;
  lastKey: string;
  lastNext: N | null;
}

/**
 * The node an object's keys lead to from `root`, in for-in order: every key
 * when `ownOnly` (the caller knows for-in yields own keys only), else the
 * own ones, as msgpackr filters them. `make` makes the nodes missing.
 */
export function followKeys<N extends KeyTrieNode<N>>(root: N, object: Record<string, unknown>, ownOnly: boolean, make: () => N): N {
  let node = root;
  for (const key in object) {
    if (ownOnly || typeof object.hasOwnProperty !== "function" || Object.hasOwn(object, key)) {
      if (node.lastKey === key && node.lastNext !== null) {
        node = node.lastNext;
        continue;
      }
      let next = node.next.get(key);
      if (next === undefined) {
        next = make();
        node.next.set(key, next);
      }
      node.lastKey = key;
      node.lastNext = next;
      node = next;
    }
  }
  return node;
}
