import { tpKey } from "@kcsim/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type FetchRequestData,
  FetchSessionHandler,
  fetchResponseFor,
  isFull,
  type NamedTopicIdPartition,
  type SessionPartition,
  samePartitionFetchData,
  ZERO_TOPIC_ID,
} from "../src/index.js";
import { BAR, FOO, fetchData, read, ZAR } from "./fetch-fixtures.js";

/**
 * Kafka's `FetchSessionHandler.Builder.build` for an incremental session,
 * written out plainly (one map of the wanted partitions, walked against the
 * session): the model the handler's builds must agree with, including its
 * fast path for a request that wants exactly the session's partitions.
 */
class SessionModel {
  session = new Map<string, SessionPartition>();

  build(wanted: readonly (readonly [string, SessionPartition])[], full: boolean): Omit<FetchRequestData, "metadata"> {
    const next = new Map<string, SessionPartition>();
    for (const [key, entry] of wanted) next.set(key, entry);
    let canUseTopicIds = wanted.every(([, entry]) => entry.data.topicId !== ZERO_TOPIC_ID);
    if (full) {
      this.session = next;
      const all = [...next.values()];
      return { toSend: all, toForget: [], toReplace: [], sessionPartitions: all, canUseTopicIds };
    }
    const removed: NamedTopicIdPartition[] = [];
    const replaced: NamedTopicIdPartition[] = [];
    for (const [key, prev] of this.session) {
      const want = next.get(key);
      if (want === undefined) {
        this.session.delete(key);
        removed.push({ topicId: prev.data.topicId, topic: prev.topic, partition: prev.partition });
        if (prev.data.topicId === ZERO_TOPIC_ID) canUseTopicIds = false;
        continue;
      }
      next.delete(key);
      if (prev.data.topicId !== want.data.topicId && prev.data.topicId !== ZERO_TOPIC_ID && want.data.topicId !== ZERO_TOPIC_ID) {
        next.set(key, want);
        this.session.set(key, want);
        replaced.push({ topicId: prev.data.topicId, topic: prev.topic, partition: prev.partition });
      } else if (!samePartitionFetchData(prev.data, want.data)) {
        next.set(key, want);
        this.session.set(key, want);
      }
    }
    for (const [key, want] of next) {
      if (this.session.has(key)) break;
      this.session.set(key, want);
    }
    return {
      toSend: [...next.values()],
      toForget: removed,
      toReplace: replaced,
      sessionPartitions: [...this.session.values()],
      canUseTopicIds,
    };
  }
}

/** One wanted partition: which of a few partitions, and fetch data from a small range (so rounds often repeat it). */
const wantedArb = fc.record({
  topic: fc.constantFrom("foo", "bar"),
  partition: fc.integer({ min: 0, max: 3 }),
  topicId: fc.constantFrom(FOO, FOO, FOO, BAR, ZAR, ZERO_TOPIC_ID),
  fetchOffset: fc.integer({ min: 0, max: 2 }),
  reuse: fc.boolean(),
});

/** A round: the partitions wanted, or "same" (exactly the last round's partitions, most with the same entries). */
const roundArb = fc.oneof(
  fc.array(wantedArb, { maxLength: 6 }),
  fc.record({ same: fc.constant(true), bump: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 2 }) }),
);

describe("FetchSessionHandler builds", () => {
  it("agree with Kafka's build on every sequence of rounds, whether a round wants exactly the session's partitions or not", () => {
    fc.assert(
      fc.property(fc.array(roundArb, { minLength: 1, maxLength: 12 }), (rounds) => {
        const handler = new FetchSessionHandler(1);
        const model = new SessionModel();
        // Entries handed in before, by key: a round may hand in the same object again (the replica fetcher does).
        const last = new Map<string, SessionPartition>();
        let previous: (readonly [string, SessionPartition])[] = [];
        let full = true;
        for (const round of rounds) {
          let wanted: (readonly [string, SessionPartition])[];
          if ("same" in round) {
            wanted = previous.map(([key, entry], i) =>
              round.bump.includes(i) ? [key, { ...entry, data: { ...entry.data, fetchOffset: entry.data.fetchOffset + 1 } }] : [key, entry],
            );
          } else {
            wanted = round.map((w) => {
              const key = tpKey(w.topic, w.partition);
              const before = last.get(key);
              const entry =
                w.reuse && before !== undefined
                  ? before
                  : { topic: w.topic, partition: w.partition, data: fetchData(w.topicId, { fetchOffset: w.fetchOffset }) };
              return [key, entry] as const;
            });
          }
          for (const [key, entry] of wanted) last.set(key, entry);
          const builder = handler.newBuilder();
          for (const [key, entry] of wanted) builder.addEntry(key, entry);
          const { metadata: _metadata, ...built } = builder.build();
          expect(built).toEqual(model.build(wanted, full));
          // The broker keeps the session (id 5): a full request is answered with all its partitions, an incremental one with none.
          const reads = full ? built.sessionPartitions.map((p) => read(p.data.topicId, p.partition)) : [];
          handler.handleResponse(fetchResponseFor(1, 0, 5, reads));
          full = isFull(handler.nextMetadata);
          previous = wanted;
        }
      }),
      { numRuns: 500, seed: 14 },
    );
  });
});
