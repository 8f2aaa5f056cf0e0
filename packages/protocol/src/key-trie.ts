/**
 * A trie of object key sequences (msgpackr's "transitions"): the node an
 * object's keys lead to stands for the object's shape. Objects made in one
 * place take the same path every time, so each node remembers the last
 * three keys followed from it and where they led, most recent first, and a
 * walk rarely looks into a Map. Three, not one: the root is where every
 * object starts, and a message or a log record holds objects of two or
 * three shapes in turn (a request, its topics, their partitions).
 */
export interface KeyTrieNode<N> {
  readonly next: Map<string, N>;
  lastKey: string;
  lastNext: N | null;
  secondKey: string;
  secondNext: N | null;
  thirdKey: string;
  thirdNext: N | null;
}

/** The links of a node just made: no key followed from it yet (a node type spreads them and adds its own fields). */
export function unlinkedNode<N>(): KeyTrieNode<N> {
  return { next: new Map(), lastKey: "", lastNext: null, secondKey: "", secondNext: null, thirdKey: "", thirdNext: null };
}

/** The node `key` leads to from `node` (made by `make` if missing), remembered as the last one followed. */
export function follow<N extends KeyTrieNode<N>>(node: N, key: string, make: () => N): N {
  let next: N | null | undefined;
  if (node.secondKey === key && node.secondNext !== null) {
    next = node.secondNext;
  } else {
    if (node.thirdKey === key && node.thirdNext !== null) {
      next = node.thirdNext;
    } else {
      next = node.next.get(key);
      if (next === undefined) {
        next = make();
        node.next.set(key, next);
      }
    }
    node.thirdKey = node.secondKey;
    node.thirdNext = node.secondNext;
  }
  node.secondKey = node.lastKey;
  node.secondNext = node.lastNext;
  node.lastKey = key;
  node.lastNext = next;
  return next;
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
      node = node.lastKey === key && node.lastNext !== null ? node.lastNext : follow(node, key, make);
    }
  }
  return node;
}
