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
});
