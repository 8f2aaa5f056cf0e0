import type { EffectGroup } from "./shard-protocol.js";

function compareHeads(a: EffectGroup, b: EffectGroup): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  if (a[1] !== b[1]) return a[1] - b[1];
  if (a[2] !== b[2]) return a[2] - b[2];
  return a[3] - b[3];
}

/**
 * Merges the shards' sequences of handled events into the order the inline
 * host handles them. Inline pops the smallest pending event each time; a
 * shard's next event in its own sequence is always already pending (events
 * created inside a window are the shard's own timers, created by earlier
 * events of the same shard), so inline's order is the merge that takes,
 * each time, the sequence whose *next* event has the smallest key. Not a
 * sort: a zero-delay timer can have a smaller key than the event that armed
 * it, and must still come after it.
 */
export function mergeByHeads(sequences: readonly (readonly EffectGroup[])[]): EffectGroup[] {
  const live = sequences.filter((sequence) => sequence.length > 0);
  if (live.length === 1) return [...(live[0] as readonly EffectGroup[])];
  const cursors = live.map(() => 0);
  const out: EffectGroup[] = [];
  for (;;) {
    let best = -1;
    let head: EffectGroup | undefined;
    for (let i = 0; i < live.length; i++) {
      const candidate = (live[i] as readonly EffectGroup[])[cursors[i] as number];
      if (candidate !== undefined && (head === undefined || compareHeads(candidate, head) < 0)) {
        head = candidate;
        best = i;
      }
    }
    if (head === undefined) return out;
    out.push(head);
    cursors[best] = (cursors[best] as number) + 1;
  }
}
