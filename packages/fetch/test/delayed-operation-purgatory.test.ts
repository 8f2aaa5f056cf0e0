import { describe, expect, it } from "vitest";
import { type DelayedOperation, DelayedOperationPurgatory } from "../src/broker/delayed-operation-purgatory.js";

function op(id: number, ...watchKeys: string[]): DelayedOperation {
  return { id, watchKeys };
}

const ids = (ops: readonly DelayedOperation[]) => ops.map((o) => o.id);

describe("DelayedOperationPurgatory", () => {
  it("removing an operation takes it out of every key it watches, and of no other operation's", () => {
    const purgatory = new DelayedOperationPurgatory<DelayedOperation>();
    purgatory.watch(op(1, "a", "b"));
    purgatory.watch(op(2, "b", "c"));
    purgatory.watch(op(3, "a"));
    expect(purgatory.remove(1)?.id).toBe(1);
    expect(ids(purgatory.watching("a"))).toEqual([3]);
    expect(ids(purgatory.watching("b"))).toEqual([2]);
    expect(ids(purgatory.watching("c"))).toEqual([2]);
    expect(purgatory.remove(1)).toBeUndefined();
    expect(purgatory.get(2)?.id).toBe(2);
    expect(purgatory.size).toBe(2);
  });

  it("a key watched twice by one operation, or emptied and watched again, leaves nothing behind on removal", () => {
    const purgatory = new DelayedOperationPurgatory<DelayedOperation>();
    purgatory.watch(op(1, "a", "b", "a"));
    expect(ids(purgatory.watching("a"))).toEqual([1]);
    purgatory.remove(1);
    expect(purgatory.watching("a")).toEqual([]);
    expect(purgatory.watching("b")).toEqual([]);
    // The emptied key's set is reused by the next watcher: removing that one empties it again.
    purgatory.watch(op(2, "a"));
    purgatory.watch(op(3, "b", "a"));
    expect(ids(purgatory.watching("a"))).toEqual([2, 3]);
    purgatory.remove(2);
    expect(ids(purgatory.watching("a"))).toEqual([3]);
    purgatory.remove(3);
    expect(purgatory.watching("a")).toEqual([]);
    expect(purgatory.watching("b")).toEqual([]);
    expect(purgatory.size).toBe(0);
  });

  it("lists a key's watchers in id order even when an older operation started watching it later", () => {
    const purgatory = new DelayedOperationPurgatory<DelayedOperation>();
    purgatory.watch(op(5, "a"));
    purgatory.watch(op(2, "a"));
    expect(ids(purgatory.watching("a"))).toEqual([2, 5]);
    purgatory.remove(2);
    expect(ids(purgatory.watching("a"))).toEqual([5]);
  });

  it("completed operations leave a key's list when the key is next looked at, or in a sweep once they outnumber the live ones", () => {
    const purgatory = new DelayedOperationPurgatory<DelayedOperation>();
    purgatory.watch(op(1, "a", "b"));
    purgatory.watch(op(2, "a", "c"));
    purgatory.remove(1);
    expect(purgatory.watcherEntries).toBe(4);
    expect(ids(purgatory.watching("a"))).toEqual([2]);
    expect(purgatory.watcherEntries).toBe(3);
    // Keys never looked at: 5,000 fetches over two partitions that never change, each ended by its timeout.
    for (let id = 3; id < 5003; id++) {
      purgatory.watch(op(id, "p", "q"));
      purgatory.remove(id);
      expect(purgatory.watcherEntries).toBeLessThanOrEqual(1003);
    }
    expect(ids(purgatory.watching("c"))).toEqual([2]);
    expect(purgatory.watching("p")).toEqual([]);
    expect(purgatory.size).toBe(1);
  });

  it("keeps many live operations with their stale neighbours, each key listing exactly its parked watchers in id order", () => {
    const purgatory = new DelayedOperationPurgatory<DelayedOperation>();
    const parked = new Set<number>();
    for (let id = 1; id <= 3000; id++) {
      purgatory.watch(op(id, `k${id % 7}`, `k${id % 5}`));
      parked.add(id);
      if (id % 3 !== 0) {
        purgatory.remove(id);
        parked.delete(id);
      }
    }
    for (let k = 0; k < 7; k++) {
      const expected = [...parked].filter((id) => id % 7 === k || id % 5 === k).sort((a, b) => a - b);
      expect(ids(purgatory.watching(`k${k}`))).toEqual(expected);
    }
    expect(purgatory.size).toBe(1000);
  });

  it("refuses to park an id that is already parked", () => {
    const purgatory = new DelayedOperationPurgatory<DelayedOperation>();
    purgatory.watch(op(1, "a"));
    expect(() => purgatory.watch(op(1, "b"))).toThrow("delayed operation 1 is already parked");
  });

  it("an operation parked again after its removal is listed once, and its old entries count as stale", () => {
    const purgatory = new DelayedOperationPurgatory<DelayedOperation>();
    const same = op(1, "a", "b");
    purgatory.watch(same);
    purgatory.watch(op(2, "a"));
    purgatory.remove(1);
    purgatory.watch(same);
    expect(ids(purgatory.watching("a"))).toEqual([1, 2]);
    expect(ids(purgatory.watching("b"))).toEqual([1]);
    expect(purgatory.watcherEntries).toBe(3);
  });
});
