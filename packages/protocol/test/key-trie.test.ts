import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { followKeys, type KeyTrieNode, unlinkedNode } from "../src/key-trie.js";

interface Node extends KeyTrieNode<Node> {
  readonly id: number;
}

describe("followKeys", () => {
  it("reaches the node of the key sequence whatever keys were followed before (the recent keys each node remembers)", () => {
    const keys = fc.constantFrom("a", "b", "c", "d", "e", "");
    fc.assert(
      fc.property(fc.array(fc.uniqueArray(keys, { maxLength: 4 }), { maxLength: 60 }), (objects) => {
        let made = 0;
        const make = (): Node => ({ ...unlinkedNode<Node>(), id: made++ });
        const root = make();
        /** The node of a key sequence, found through the Maps alone (made on the way if missing). */
        const byMaps = (sequence: readonly string[]): Node =>
          sequence.reduce((node, key) => {
            const next = node.next.get(key) ?? make();
            node.next.set(key, next);
            return next;
          }, root);
        for (const sequence of objects) {
          const object = Object.fromEntries(sequence.map((key, i) => [key, i]));
          const reached = followKeys(root, object, true, make);
          expect(reached).toBe(byMaps(Object.keys(object)));
        }
      }),
      { numRuns: 300 },
    );
  });
});
