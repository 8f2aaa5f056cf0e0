import { ErrorCode, type FetchResponse, type FetchResponsePartition, topicIdFor } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  FETCH_API_VERSION,
  FetchManager,
  type FetchRequestData,
  FetchSessionCache,
  FetchSessionHandler,
  FINAL_EPOCH,
  fetchRequestFor,
  fetchResponseFor,
  INITIAL_EPOCH,
  INVALID_SESSION_ID,
  type PartitionReadResult,
  type SessionPartition,
  ZERO_TOPIC_ID,
} from "../src/index.js";
import { BAR, FOO, fetchData, randomFor, read } from "./fetch-fixtures.js";

const foo0 = { topic: "foo", partition: 0 };
const foo1 = { topic: "foo", partition: 1 };
const bar0 = { topic: "bar", partition: 0 };

/** Kafka's ReqEntry(topic, partition, fetchOffset, logStartOffset, maxBytes) as a session partition. */
function entry(
  topic: string,
  topicId: string,
  partition: number,
  fetchOffset: number,
  logStartOffset: number,
  maxBytes: number,
): SessionPartition {
  return { topic, partition, data: fetchData(topicId, { fetchOffset, logStartOffset, partitionMaxBytes: maxBytes }) };
}

/** Kafka's RespEntry: a response partition with a high watermark and last stable offset. */
function respEntry(topicId: string, partition: number, highWatermark = 10, lastStableOffset = 20): PartitionReadResult {
  const r = read(topicId, partition, { highWatermark });
  const data: FetchResponsePartition = { ...r.data, lastStableOffset };
  return { topicId, data };
}

function response(sessionId: number, reads: PartitionReadResult[], errorCode: number = ErrorCode.NONE, throttleTimeMs = 0): FetchResponse {
  return fetchResponseFor(7, errorCode, sessionId, reads, throttleTimeMs);
}

function metadataOf(data: FetchRequestData): [number, number] {
  return [data.metadata.sessionId, data.metadata.epoch];
}

describe("FetchSessionHandler", () => {
  it("stays sessionless when the broker answers full requests with session id 0 (Kafka testSessionless)", () => {
    const handler = new FetchSessionHandler(1);
    const data = handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { fetchOffset: 0, logStartOffset: 100, partitionMaxBytes: 200 }))
      .add(foo1, fetchData(FOO, { fetchOffset: 10, logStartOffset: 110, partitionMaxBytes: 210 }))
      .build();
    const expected = [entry("foo", FOO, 0, 0, 100, 200), entry("foo", FOO, 1, 10, 110, 210)];
    expect(data.toSend).toEqual(expected);
    expect(data.sessionPartitions).toEqual(expected);
    expect(metadataOf(data)).toEqual([INVALID_SESSION_ID, INITIAL_EPOCH]);
    expect(handler.handleResponse(response(INVALID_SESSION_ID, [respEntry(FOO, 0), respEntry(FOO, 1)]))).toBe(true);
    const data2 = handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { fetchOffset: 0, logStartOffset: 100, partitionMaxBytes: 200 }))
      .build();
    expect(metadataOf(data2)).toEqual([INVALID_SESSION_ID, INITIAL_EPOCH]);
    expect(data2.toSend).toEqual([entry("foo", FOO, 0, 0, 100, 200)]);
  });

  it("sends added partitions, then altered ones, and recreates the session after an epoch error (Kafka testIncrementals)", () => {
    const handler = new FetchSessionHandler(1);
    const data = handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { fetchOffset: 0, logStartOffset: 100, partitionMaxBytes: 200 }))
      .add(foo1, fetchData(FOO, { fetchOffset: 10, logStartOffset: 110, partitionMaxBytes: 210 }))
      .build();
    expect(metadataOf(data)).toEqual([INVALID_SESSION_ID, INITIAL_EPOCH]);
    expect(handler.handleResponse(response(123, [respEntry(FOO, 0), respEntry(FOO, 1)]))).toBe(true);
    expect(handler.nextMetadata).toEqual({ sessionId: 123, epoch: 1 });

    // One partition altered (log start offset), one added.
    const data2 = handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { fetchOffset: 0, logStartOffset: 100, partitionMaxBytes: 200 }))
      .add(foo1, fetchData(FOO, { fetchOffset: 10, logStartOffset: 120, partitionMaxBytes: 210 }))
      .add(bar0, fetchData(BAR, { fetchOffset: 20, logStartOffset: 200, partitionMaxBytes: 200 }))
      .build();
    expect(metadataOf(data2)).toEqual([123, 1]);
    expect(data2.sessionPartitions).toEqual([
      entry("foo", FOO, 0, 0, 100, 200),
      entry("foo", FOO, 1, 10, 120, 210),
      entry("bar", BAR, 0, 20, 200, 200),
    ]);
    // The added partition comes first, the altered one after it; the unchanged one is omitted.
    expect(data2.toSend).toEqual([entry("bar", BAR, 0, 20, 200, 200), entry("foo", FOO, 1, 10, 120, 210)]);
    expect(data2.toForget).toEqual([]);
    expect(handler.handleResponse(response(123, [respEntry(FOO, 1, 20, 20)]))).toBe(true);
    expect(handler.nextMetadata).toEqual({ sessionId: 123, epoch: 2 });

    // INVALID_FETCH_SESSION_EPOCH: the next request is full and names the same session id, to close it.
    expect(handler.handleResponse(response(INVALID_SESSION_ID, [], ErrorCode.INVALID_FETCH_SESSION_EPOCH))).toBe(false);
    const data4 = handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { fetchOffset: 0, logStartOffset: 100, partitionMaxBytes: 200 }))
      .add(foo1, fetchData(FOO, { fetchOffset: 10, logStartOffset: 120, partitionMaxBytes: 210 }))
      .add(bar0, fetchData(BAR, { fetchOffset: 20, logStartOffset: 200, partitionMaxBytes: 200 }))
      .build();
    expect(metadataOf(data4)).toEqual([123, INITIAL_EPOCH]);
    expect(data4.toSend).toEqual(data4.sessionPartitions);
    expect(data4.toSend).toHaveLength(3);
  });

  it("refuses a second build (Kafka testDoubleBuild)", () => {
    const builder = new FetchSessionHandler(1).newBuilder().add(foo0, fetchData(FOO));
    builder.build();
    expect(() => builder.build()).toThrow();
    expect(() => builder.add(foo1, fetchData(FOO))).toThrow();
  });

  it("forgets removed partitions and starts over after FETCH_SESSION_ID_NOT_FOUND (Kafka testIncrementalPartitionRemoval)", () => {
    const handler = new FetchSessionHandler(1);
    const data = handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { fetchOffset: 0, logStartOffset: 100, partitionMaxBytes: 200 }))
      .add(foo1, fetchData(FOO, { fetchOffset: 10, logStartOffset: 110, partitionMaxBytes: 210 }))
      .add(bar0, fetchData(BAR, { fetchOffset: 20, logStartOffset: 120, partitionMaxBytes: 220 }))
      .build();
    expect(data.toSend).toHaveLength(3);
    handler.handleResponse(response(123, [respEntry(FOO, 0), respEntry(FOO, 1), respEntry(BAR, 0)]));
    const data2 = handler
      .newBuilder()
      .add(foo1, fetchData(FOO, { fetchOffset: 10, logStartOffset: 110, partitionMaxBytes: 210 }))
      .build();
    expect(metadataOf(data2)).toEqual([123, 1]);
    expect(data2.sessionPartitions).toEqual([entry("foo", FOO, 1, 10, 110, 210)]);
    expect(data2.toSend).toEqual([]);
    expect(data2.toForget).toEqual([
      { topicId: FOO, topic: "foo", partition: 0 },
      { topicId: BAR, topic: "bar", partition: 0 },
    ]);
    expect(handler.handleResponse(response(INVALID_SESSION_ID, [], ErrorCode.FETCH_SESSION_ID_NOT_FOUND))).toBe(false);
    const data3 = handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { fetchOffset: 0, logStartOffset: 100, partitionMaxBytes: 200 }))
      .build();
    expect(metadataOf(data3)).toEqual([INVALID_SESSION_ID, INITIAL_EPOCH]);
    expect(data3.toSend).toEqual([entry("foo", FOO, 0, 0, 100, 200)]);
  });

  it("checks that a full response lists exactly the session's partitions (Kafka testVerifyFullFetchResponsePartitions[WithTopicIds])", () => {
    const handler = new FetchSessionHandler(1);
    const all = response(0, [respEntry(FOO, 0), respEntry(FOO, 1), respEntry(BAR, 0)]);
    const issue = handler.verifyFullFetchResponsePartitions(all);
    expect(issue).toContain("extraPartitions=");
    expect(issue).not.toContain("omittedPartitions=");
    handler.newBuilder().add(foo0, fetchData(FOO)).add(foo1, fetchData(FOO)).add(bar0, fetchData(BAR)).build();
    expect(handler.verifyFullFetchResponsePartitions(all)).toBeUndefined();
    const issue3 = handler.verifyFullFetchResponsePartitions(response(0, [respEntry(FOO, 0), respEntry(FOO, 1)]));
    expect(issue3).not.toContain("extraPartitions=");
    expect(issue3).toContain("omittedPartitions=");
    const extraId = topicIdFor("extra2");
    const issue4 = handler.verifyFullFetchResponsePartitions(
      response(0, [respEntry(FOO, 0), respEntry(extraId, 1), respEntry(FOO, 1), respEntry(BAR, 0)]),
    );
    expect(issue4).toContain("extraPartitions=");
    expect(issue4).toContain("extraIds=");
    expect(issue4).not.toContain("omittedPartitions=");
    // A full response that does not fit resets the handler to (0, 0).
    expect(handler.handleResponse(response(55, [respEntry(FOO, 0)]))).toBe(false);
    expect(handler.nextMetadata).toEqual({ sessionId: INVALID_SESSION_ID, epoch: INITIAL_EPOCH });
  });

  it("closes and recreates the session after any other top-level error (Kafka testTopLevelErrorResetsMetadata)", () => {
    const handler = new FetchSessionHandler(1);
    handler
      .newBuilder()
      .add(foo0, fetchData(FOO))
      .add(foo1, fetchData(FOO, { fetchOffset: 10 }))
      .build();
    handler.handleResponse(response(123, [respEntry(FOO, 0), respEntry(FOO, 1)]));
    const unknown = topicIdFor("unknown");
    const data2 = handler.newBuilder().add({ topic: "unknown", partition: 0 }, fetchData(unknown)).build();
    expect(metadataOf(data2)).toEqual([123, 1]);
    expect(
      handler.handleResponse(response(123, [read(unknown, 0, { errorCode: ErrorCode.UNKNOWN_TOPIC_ID })], ErrorCode.UNKNOWN_TOPIC_ID)),
    ).toBe(false);
    expect(metadataOf(handler.newBuilder().build())).toEqual([123, INITIAL_EPOCH]);
  });

  it("closes and recreates the session after a transport error, and closes it for good on notifyClose", () => {
    const handler = new FetchSessionHandler(1);
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    handler.handleResponse(response(77, [respEntry(FOO, 0)]));
    handler.handleError();
    expect(handler.nextMetadata).toEqual({ sessionId: 77, epoch: INITIAL_EPOCH });
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    handler.handleResponse(response(78, [respEntry(FOO, 0)]));
    handler.notifyClose();
    expect(handler.nextMetadata).toEqual({ sessionId: 78, epoch: FINAL_EPOCH });
  });

  it("resets an incremental session to (id, 0) when the response names partitions outside it, and to (0, 0) when the broker closed it", () => {
    const handler = new FetchSessionHandler(1);
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    handler.handleResponse(response(9, [respEntry(FOO, 0)]));
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    expect(handler.verifyIncrementalFetchResponsePartitions(response(9, [respEntry(BAR, 0)]))).toContain("extraIds=");
    expect(handler.handleResponse(response(9, [respEntry(FOO, 1)]))).toBe(false);
    expect(handler.nextMetadata).toEqual({ sessionId: 9, epoch: INITIAL_EPOCH });
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    handler.handleResponse(response(10, [respEntry(FOO, 0)]));
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    // An incremental response with session id 0: the broker dropped the (emptied) session.
    expect(handler.handleResponse(response(INVALID_SESSION_ID, []))).toBe(true);
    expect(handler.nextMetadata).toEqual({ sessionId: INVALID_SESSION_ID, epoch: INITIAL_EPOCH });
  });

  it("treats an empty throttled full response as unusable but not an error (KIP-219)", () => {
    const handler = new FetchSessionHandler(1);
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    expect(handler.handleResponse(response(INVALID_SESSION_ID, [], ErrorCode.NONE, 100))).toBe(false);
    expect(handler.nextMetadata).toEqual({ sessionId: INVALID_SESSION_ID, epoch: INITIAL_EPOCH });
  });

  it("forgets a replaced topic id and sends the partition again under the new id (Kafka testTopicIdReplaced)", () => {
    for (const [startsWithIds, endsWithIds] of [
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ] as const) {
      const handler = new FetchSessionHandler(1);
      const id1 = startsWithIds ? topicIdFor("foo-v1") : ZERO_TOPIC_ID;
      const data = handler
        .newBuilder()
        .add(foo0, fetchData(id1, { logStartOffset: 100, partitionMaxBytes: 200 }))
        .build();
      expect(data.canUseTopicIds).toBe(startsWithIds);
      handler.handleResponse(response(123, [respEntry(id1, 0)]));
      if (!startsWithIds) {
        // The sim's responses are matched by id only: a session without ids cannot be established.
        expect(handler.nextMetadata.sessionId).toBe(INVALID_SESSION_ID);
        continue;
      }
      const id2 = endsWithIds ? topicIdFor("foo-v2") : ZERO_TOPIC_ID;
      const data2 = handler
        .newBuilder()
        .add(foo0, fetchData(id2, { logStartOffset: 100, partitionMaxBytes: 200 }))
        .build();
      expect(metadataOf(data2)).toEqual([123, 1]);
      expect(data2.toSend).toEqual([entry("foo", id2, 0, 0, 100, 200)]);
      expect(data2.sessionPartitions).toEqual([entry("foo", id2, 0, 0, 100, 200)]);
      expect(data2.canUseTopicIds).toBe(endsWithIds);
      if (endsWithIds) {
        expect(data2.toReplace).toEqual([{ topicId: id1, topic: "foo", partition: 0 }]);
        expect(handler.sessionTopicNames()).toEqual(new Map([[id2, "foo"]]));
        const req = fetchRequestFor(data2, {
          correlationId: 1,
          clientId: "c",
          replicaId: -1,
          maxWaitMs: 500,
          minBytes: 1,
          maxBytes: 1 << 20,
        });
        expect(req.forgottenTopicsData).toEqual([{ topicId: id1, partitions: [0] }]);
        expect(req.topics).toEqual([{ topicId: id2, partitions: [expect.objectContaining({ partition: 0 })] }]);
      } else {
        // Downgraded to no ids: altered, not replaced; the broker closes the session on the id-usage change.
        expect(data2.toReplace).toEqual([]);
        expect(handler.sessionTopicNames().size).toBe(0);
      }
    }
  });

  it("forgets every partition when none is wanted any more, keeping the session (Kafka testIdUsageWithAllForgottenPartitions)", () => {
    const handler = new FetchSessionHandler(1);
    handler
      .newBuilder()
      .add(foo0, fetchData(FOO, { logStartOffset: 100, partitionMaxBytes: 200 }))
      .build();
    handler.handleResponse(response(123, [respEntry(FOO, 0)]));
    const data2 = handler.newBuilder().build();
    expect(data2.toForget).toEqual([{ topicId: FOO, topic: "foo", partition: 0 }]);
    expect(metadataOf(data2)).toEqual([123, 1]);
    expect(data2.canUseTopicIds).toBe(true);
  });

  it("may add a recreated topic after its old incarnation left the session (Kafka testOkToAddNewIdAfterTopicRemovedFromSession)", () => {
    const handler = new FetchSessionHandler(1);
    handler.newBuilder().add(foo0, fetchData(FOO)).build();
    handler.handleResponse(response(123, [respEntry(FOO, 0)]));
    const data2 = handler.newBuilder().build();
    expect(data2.toSend).toEqual([]);
    expect(data2.sessionPartitions).toEqual([]);
    expect(handler.handleResponse(response(123, []))).toBe(true);
    const newId = topicIdFor("foo-recreated");
    const data3 = handler.newBuilder().add(foo0, fetchData(newId)).build();
    expect(metadataOf(data3)).toEqual([123, 2]);
    expect(data3.toSend).toEqual([{ ...foo0, data: fetchData(newId) }]);
    expect(data3.canUseTopicIds).toBe(true);
  });
});

describe("fetchRequestFor", () => {
  it("groups partitions under a topic only while consecutive, and forgotten ones by topic (removed, then replaced)", () => {
    const handler = new FetchSessionHandler(1);
    const first = handler
      .newBuilder()
      .add(foo0, fetchData(FOO))
      .add(bar0, fetchData(BAR))
      .add(foo1, fetchData(FOO, { fetchOffset: 3, currentLeaderEpoch: 4, lastFetchedEpoch: 2 }))
      .build();
    const req = fetchRequestFor(first, {
      correlationId: 5,
      clientId: "consumer-1",
      replicaId: -1,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 52_428_800,
      rackId: "r1",
    });
    expect(req).toMatchObject({
      type: "FetchRequest",
      apiVersion: FETCH_API_VERSION,
      correlationId: 5,
      sessionId: 0,
      sessionEpoch: 0,
      rackId: "r1",
      isolationLevel: 0,
    });
    expect(req.topics.map((t) => [t.topicId, t.partitions.map((p) => p.partition)])).toEqual([
      [FOO, [0]],
      [BAR, [0]],
      [FOO, [1]],
    ]);
    expect(req.topics[2]?.partitions[0]).toEqual({
      partition: 1,
      currentLeaderEpoch: 4,
      fetchOffset: 3,
      lastFetchedEpoch: 2,
      logStartOffset: -1,
      partitionMaxBytes: 1_048_576,
    });
    expect(req.forgottenTopicsData).toEqual([]);
    handler.handleResponse(response(42, [respEntry(FOO, 0), respEntry(BAR, 0), respEntry(FOO, 1)]));
    const second = handler.newBuilder().add(bar0, fetchData(BAR)).build();
    const req2 = fetchRequestFor(second, {
      correlationId: 6,
      clientId: "consumer-1",
      replicaId: -1,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 1,
    });
    expect(req2).toMatchObject({ sessionId: 42, sessionEpoch: 1, topics: [] });
    expect(req2.forgottenTopicsData).toEqual([{ topicId: FOO, partitions: [0, 1] }]);
  });
});

describe("client handler and broker recovery", () => {
  function roundTrip(handler: FetchSessionHandler, manager: FetchManager, wanted: [typeof foo0, string][], now: number): FetchResponse {
    const builder = handler.newBuilder();
    for (const [tp, topicId] of wanted) builder.add(tp, fetchData(topicId));
    const req = fetchRequestFor(builder.build(), {
      correlationId: 1,
      clientId: "c",
      replicaId: -1,
      maxWaitMs: 500,
      minBytes: 1,
      maxBytes: 1 << 20,
    });
    const ctx = manager.newContext(req, now);
    const resp = ctx.updateAndGenerateResponse(
      ctx.partitions().map((p) => read(p.topicId, p.partition)),
      now,
    );
    handler.handleResponse(resp);
    return resp;
  }

  it("goes back to a full request after the broker evicted the session, and gets a new session", () => {
    const manager = new FetchManager(new FetchSessionCache({ random: randomFor("recover"), shardCount: 1, maxSlots: 1 }));
    const handler = new FetchSessionHandler(1);
    const wanted: [typeof foo0, string][] = [
      [foo0, FOO],
      [foo1, FOO],
    ];
    const first = roundTrip(handler, manager, wanted, 0);
    expect(handler.nextMetadata).toEqual({ sessionId: first.sessionId, epoch: 1 });
    // Another client's session evicts ours (ours is idle > 120 s).
    const other = new FetchSessionHandler(2);
    roundTrip(other, manager, [[bar0, BAR]], 200_000_000);
    expect(manager.cache.get(first.sessionId)).toBeUndefined();
    const failed = roundTrip(handler, manager, wanted, 200_000_001);
    expect(failed.errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    expect(handler.nextMetadata).toEqual({ sessionId: INVALID_SESSION_ID, epoch: INITIAL_EPOCH });
    // The next request is full; the cache is full of a fresh session, so it is served without a session...
    const full = roundTrip(handler, manager, wanted, 200_000_002);
    expect(full.errorCode).toBe(ErrorCode.NONE);
    expect(full.sessionId).toBe(INVALID_SESSION_ID);
    expect(full.responses[0]?.partitions).toHaveLength(2);
    // ...until the other session is stale, when a session is created again.
    const again = roundTrip(handler, manager, wanted, 400_000_000);
    expect(again.sessionId).not.toBe(INVALID_SESSION_ID);
    expect(handler.nextMetadata).toEqual({ sessionId: again.sessionId, epoch: 1 });
  });

  it("recovers from an epoch error by a full request naming the session, which the broker replaces", () => {
    const manager = new FetchManager(new FetchSessionCache({ random: randomFor("epoch") }));
    const handler = new FetchSessionHandler(1);
    const wanted: [typeof foo0, string][] = [[foo0, FOO]];
    const first = roundTrip(handler, manager, wanted, 0);
    // A duplicate of the first incremental request advances the broker's epoch behind the client's back.
    manager.newContext(
      fetchRequestFor(handler.newBuilder().add(foo0, fetchData(FOO)).build(), {
        correlationId: 9,
        clientId: "c",
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 0,
      }),
      1,
    );
    const failed = roundTrip(handler, manager, wanted, 2);
    expect(failed.errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect(handler.nextMetadata).toEqual({ sessionId: first.sessionId, epoch: INITIAL_EPOCH });
    const full = roundTrip(handler, manager, wanted, 3);
    expect(full.errorCode).toBe(ErrorCode.NONE);
    expect(manager.cache.get(first.sessionId)).toBeUndefined();
    expect(full.sessionId).not.toBe(INVALID_SESSION_ID);
    expect(manager.cache.size).toBe(1);
    expect(handler.nextMetadata).toEqual({ sessionId: full.sessionId, epoch: 1 });
  });
});

describe("FetchSessionHandler session lists and wanted lists", () => {
  /** A session of foo-0 and foo-1 (full request answered with session 5), ready for incremental builds. */
  function liveSession(): { handler: FetchSessionHandler; e0: SessionPartition; e1: SessionPartition } {
    const handler = new FetchSessionHandler(1);
    const e0 = entry("foo", FOO, 0, 0, 100, 200);
    const e1 = entry("foo", FOO, 1, 10, 110, 210);
    const built = handler.newBuilder().addEntry("foo-0", e0).addEntry("foo-1", e1).build();
    handler.handleResponse(
      response(
        5,
        built.sessionPartitions.map((p) => respEntry(p.data.topicId, p.partition)),
      ),
    );
    return { handler, e0, e1 };
  }

  it("a build that changes nothing hands out the previous session list; one that changes a partition makes a new one and leaves the old as it was", () => {
    const { handler, e0, e1 } = liveSession();
    const steady1 = handler.newBuilder().addEntry("foo-0", e0).addEntry("foo-1", e1).build();
    handler.handleResponse(response(5, []));
    const steady2 = handler.newBuilder().addEntry("foo-0", e0).addEntry("foo-1", e1).build();
    handler.handleResponse(response(5, []));
    expect(steady2.toSend).toEqual([]);
    expect(steady2.sessionPartitions).toBe(steady1.sessionPartitions);
    const moved = entry("foo", FOO, 1, 11, 110, 210);
    const changed = handler.newBuilder().addEntry("foo-0", e0).addEntry("foo-1", moved).build();
    expect(changed.toSend).toEqual([moved]);
    expect(changed.sessionPartitions).toEqual([e0, moved]);
    // A request already sent keeps the list it was built with.
    expect(steady1.sessionPartitions).toEqual([e0, e1]);
  });

  it("a shorter request after a longer one wants only its own partitions (the reused wanted list is cut to its new length)", () => {
    const { handler, e0, e1 } = liveSession();
    const bar = entry("bar", BAR, 0, 0, 0, 100);
    const longer = handler.newBuilder().addEntry("foo-0", e0).addEntry("foo-1", e1).addEntry("bar-0", bar).build();
    expect(longer.toSend).toEqual([bar]);
    handler.handleResponse(response(5, []));
    const shorter = handler.newBuilder().addEntry("foo-0", e0).build();
    expect(shorter.toSend).toEqual([]);
    expect(shorter.toForget.map((p) => `${p.topic}-${p.partition}`)).toEqual(["foo-1", "bar-0"]);
    expect(shorter.sessionPartitions).toEqual([e0]);
  });

  it("two builders open at once do not share a wanted list", () => {
    const { handler, e0, e1 } = liveSession();
    const first = handler.newBuilder().addEntry("foo-0", e0);
    const second = handler.newBuilder().addEntry("foo-1", e1);
    expect(first.build().sessionPartitions).toEqual([e0]);
    handler.handleResponse(response(5, []));
    expect(second.build().sessionPartitions).toEqual([e1]);
  });
});
