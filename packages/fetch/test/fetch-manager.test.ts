import { ErrorCode, type FetchResponse, ms } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import {
  FetchManager,
  FetchSessionCache,
  FINAL_EPOCH,
  INITIAL_EPOCH,
  INT32_MAX,
  INVALID_SESSION_ID,
  IncrementalFetchContext,
  type PartitionReadResult,
} from "../src/index.js";
import { BAR, FOO, keysOf, randomFor, read, request, responsePartitions, target, ZAR } from "./fetch-fixtures.js";

/** Kafka's FetchSessionTest set-up: one shard of `maxEntries`, eviction after `evictionMs`. */
function managerWith(maxEntries = 10, evictionMs = 1000): FetchManager {
  return new FetchManager(new FetchSessionCache({ random: randomFor("manager"), shardCount: 1, maxSlots: maxEntries, evictionMs }));
}

/** Creates a session with a full request for the given partitions, answering each with `read`. */
function createSession(
  manager: FetchManager,
  now = 0,
  partitions = [target(FOO, 0), target(FOO, 1, { fetchOffset: 10 })],
  replicaId = -1,
): number {
  const context = manager.newContext(request({ sessionId: 0, epoch: INITIAL_EPOCH, partitions, replicaId }), now);
  expect(context.kind).toBe("full");
  const response = context.updateAndGenerateResponse(
    partitions.map((p) => read(p.topicId, p.partition)),
    now,
  );
  expect(response.errorCode).toBe(ErrorCode.NONE);
  expect(response.sessionId).not.toBe(INVALID_SESSION_ID);
  return response.sessionId;
}

/** An incremental round: a request at `epoch` changing nothing, answered by `reads(partitions in context order)`. */
function incremental(
  manager: FetchManager,
  sessionId: number,
  epoch: number,
  reads: (order: ReturnType<typeof keysOf>) => PartitionReadResult[] = () => [],
  now = 0,
): FetchResponse {
  const context = manager.newContext(request({ sessionId, epoch }), now);
  expect(context.kind).toBe("incremental");
  return context.updateAndGenerateResponse(reads(keysOf(context.partitions())), now);
}

describe("FetchManager.newContext", () => {
  it("serves sessionless, full, incremental and error contexts (Kafka testFetchRequests)", () => {
    const manager = managerWith();
    expect(manager.newContext(request({ sessionId: 0, epoch: FINAL_EPOCH, replicaId: 1 }), 0).kind).toBe("sessionless");

    const partitions = [target(FOO, 0), target(FOO, 1, { fetchOffset: 10 })];
    const full = manager.newContext(request({ sessionId: 0, epoch: INITIAL_EPOCH, partitions }), 0);
    expect(full.kind).toBe("full");
    expect(full.partitions()).toEqual(partitions);
    expect(full.fetchOffset(FOO, 0)).toBe(0);
    expect(full.fetchOffset(FOO, 1)).toBe(10);
    const reads2 = [read(FOO, 0, { highWatermark: 100, logStartOffset: 100 }), read(FOO, 1, { highWatermark: 10, logStartOffset: 10 })];
    const resp2 = full.updateAndGenerateResponse(reads2, 0);
    expect(resp2.errorCode).toBe(ErrorCode.NONE);
    expect(resp2.sessionId).not.toBe(INVALID_SESSION_ID);
    expect(resp2.responses).toEqual([{ topicId: FOO, partitions: reads2.map((r) => r.data) }]);
    const sessionId = resp2.sessionId;

    // Wrong epoch on an existing session.
    const ctx3 = manager.newContext(request({ sessionId, epoch: 5, partitions }), 0);
    expect(ctx3.kind).toBe("session-error");
    const resp3 = ctx3.updateAndGenerateResponse(reads2, 0);
    expect(resp3.errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect(resp3.sessionId).toBe(INVALID_SESSION_ID);
    expect(resp3.responses).toEqual([]);

    // Unknown session id.
    const ctx4 = manager.newContext(request({ sessionId: sessionId + 1, epoch: 1, partitions }), 0);
    expect(ctx4.updateAndGenerateResponse(reads2, 0).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);

    // Continue the session: nothing changed, so nothing is sent back.
    const ctx5 = manager.newContext(request({ sessionId, epoch: 1 }), 0);
    expect(ctx5.kind).toBe("incremental");
    expect(ctx5.partitions()).toEqual(partitions);
    expect(ctx5.fetchOffset(FOO, 1)).toBe(10);
    const resp5 = ctx5.updateAndGenerateResponse(reads2, 0);
    expect(resp5.errorCode).toBe(ErrorCode.NONE);
    expect(resp5.sessionId).toBe(sessionId);
    expect(resp5.responses).toEqual([]);

    // The same epoch again (a duplicate) is refused.
    expect(manager.newContext(request({ sessionId, epoch: 5, partitions }), 0).updateAndGenerateResponse([], 0).errorCode).toBe(
      ErrorCode.INVALID_FETCH_SESSION_EPOCH,
    );

    // A throttled incremental response keeps the session.
    const ctx7 = manager.newContext(request({ sessionId, epoch: 2 }), 0);
    const resp7 = ctx7.throttledResponse(100);
    expect(resp7).toMatchObject({ errorCode: ErrorCode.NONE, sessionId, throttleTimeMs: 100, responses: [] });

    // Epoch FINAL closes the session and is served sessionless.
    const ctx8 = manager.newContext(request({ sessionId, epoch: FINAL_EPOCH, partitions: [target(BAR, 0), target(BAR, 1)] }), 0);
    expect(ctx8.kind).toBe("sessionless");
    expect(manager.cache.size).toBe(0);
    const resp8 = ctx8.updateAndGenerateResponse([read(BAR, 0), read(BAR, 1)], 0);
    expect(resp8.errorCode).toBe(ErrorCode.NONE);
    expect(resp8.sessionId).toBe(INVALID_SESSION_ID);
    expect(responsePartitions(resp8)).toHaveLength(2);
  });

  it("applies added and forgotten partitions of an incremental request (Kafka testIncrementalFetchSession)", () => {
    const manager = managerWith();
    const sessionId = createSession(manager);
    const ctx = manager.newContext(
      request({ sessionId, epoch: 1, partitions: [target(BAR, 0, { fetchOffset: 15 })], forgotten: [{ topicId: FOO, partition: 0 }] }),
      0,
    );
    expect(ctx.kind).toBe("incremental");
    expect(keysOf(ctx.partitions())).toEqual([
      { topicId: FOO, partition: 1 },
      { topicId: BAR, partition: 0 },
    ]);
    expect(ctx.fetchOffset(FOO, 0)).toBeUndefined();
    expect(ctx.fetchOffset(FOO, 1)).toBe(10);
    expect(ctx.fetchOffset(BAR, 0)).toBe(15);
    expect(ctx.fetchOffset(BAR, 2)).toBeUndefined();
    // foo-1 is unchanged (HW 10, LSO 0 as cached); bar-0 is new, so its HW differs from the cached -1.
    const resp = ctx.updateAndGenerateResponse([read(FOO, 1, { highWatermark: 10 }), read(BAR, 0, { highWatermark: 10 })], 0);
    expect(resp.errorCode).toBe(ErrorCode.NONE);
    expect(responsePartitions(resp)).toEqual([{ topicId: BAR, partition: 0 }]);
    expect(resp.sessionId).toBe(sessionId);
  });

  it("updates cached leader epochs and other parameters of altered partitions (Kafka testCachedLeaderEpoch, testLastFetchedEpoch)", () => {
    const manager = managerWith();
    const partitions = [
      target(FOO, 0),
      target(FOO, 1, { fetchOffset: 10, currentLeaderEpoch: 1 }),
      target(BAR, 1, { fetchOffset: 10, currentLeaderEpoch: 2, lastFetchedEpoch: 1 }),
    ];
    const sessionId = createSession(manager, 0, partitions);
    const ctx2 = manager.newContext(request({ sessionId, epoch: 1 }), 0);
    expect(ctx2.partitions()).toEqual(partitions);
    ctx2.updateAndGenerateResponse([], 0);
    const altered = [
      target(FOO, 0, { currentLeaderEpoch: 6, lastFetchedEpoch: 5 }),
      target(FOO, 1, { fetchOffset: 10 }),
      target(BAR, 1, { fetchOffset: 10, currentLeaderEpoch: 3, lastFetchedEpoch: 3 }),
    ];
    const ctx3 = manager.newContext(request({ sessionId, epoch: 2, partitions: altered }), 0);
    expect(ctx3.partitions()).toEqual(altered);
  });

  it("drops a session that an incremental request empties and serves it sessionless (Kafka testZeroSizeFetchSession)", () => {
    const manager = managerWith();
    const sessionId = createSession(manager);
    const ctx = manager.newContext(
      request({
        sessionId,
        epoch: 1,
        forgotten: [
          { topicId: FOO, partition: 0 },
          { topicId: FOO, partition: 1 },
        ],
      }),
      0,
    );
    expect(ctx.kind).toBe("sessionless");
    const resp = ctx.updateAndGenerateResponse([], 0);
    expect(resp.sessionId).toBe(INVALID_SESSION_ID);
    expect(resp.responses).toEqual([]);
    expect(manager.cache.size).toBe(0);
  });

  it("closes the session a full request names and creates a new one", () => {
    const manager = managerWith();
    const sessionId = createSession(manager);
    const ctx = manager.newContext(request({ sessionId, epoch: INITIAL_EPOCH, partitions: [target(FOO, 0)] }), 0);
    expect(ctx.kind).toBe("full");
    expect(manager.cache.get(sessionId)).toBeUndefined();
    const resp = ctx.updateAndGenerateResponse([read(FOO, 0)], 0);
    expect(resp.sessionId).not.toBe(sessionId);
    expect(manager.cache.get(resp.sessionId)?.epoch).toBe(1);
    expect(manager.cache.size).toBe(1);
  });

  it("answers an unknown or out-of-range session id with FETCH_SESSION_ID_NOT_FOUND", () => {
    const manager = managerWith();
    for (const sessionId of [12345, INT32_MAX, -7]) {
      const resp = manager.newContext(request({ sessionId, epoch: 1 }), 0).updateAndGenerateResponse([], 0);
      expect(resp.errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
      expect(resp.sessionId).toBe(INVALID_SESSION_ID);
    }
  });

  it("refuses a request whose topic-id usage differs from the session's (FETCH_SESSION_TOPIC_ID_ERROR)", () => {
    const manager = managerWith();
    const sessionId = createSession(manager);
    const resp = manager.newContext(request({ sessionId, epoch: 1, apiVersion: 12 }), 0).updateAndGenerateResponse([], 0);
    expect(resp.errorCode).toBe(ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
  });

  it("refuses a duplicate in flight: the context checks the epoch again when it answers", () => {
    const manager = managerWith();
    const sessionId = createSession(manager);
    const first = manager.newContext(request({ sessionId, epoch: 1 }), 0);
    // A retried or duplicated request with the next epoch arrives and advances the session first.
    manager.newContext(request({ sessionId, epoch: 2 }), 0).updateAndGenerateResponse([], 0);
    const resp = first.updateAndGenerateResponse([read(FOO, 0, { highWatermark: 99 })], 0);
    expect(resp.errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    expect(resp.sessionId).toBe(sessionId);
    expect(resp.responses).toEqual([]);
    expect(first.throttledResponse(5).errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
  });

  it("wraps the session epoch from Integer.MAX_VALUE to 1", () => {
    const manager = managerWith();
    const sessionId = createSession(manager);
    const session = manager.cache.get(sessionId)!;
    session.epoch = INT32_MAX;
    const ctx = manager.newContext(request({ sessionId, epoch: INT32_MAX }), 0);
    expect(ctx.kind).toBe("incremental");
    expect(session.epoch).toBe(1);
    expect(ctx.updateAndGenerateResponse([], 0).errorCode).toBe(ErrorCode.NONE);
    expect(manager.newContext(request({ sessionId, epoch: 1 }), 0).kind).toBe("incremental");
  });

  it("makes sessions of followers privileged and of consumers not", () => {
    const manager = managerWith();
    expect(manager.cache.get(createSession(manager, 0, [target(FOO, 0)], 1))?.privileged).toBe(true);
    expect(manager.cache.get(createSession(manager, 0, [target(FOO, 0)], -1))?.privileged).toBe(false);
  });
});

describe("incremental responses", () => {
  it("omit unchanged partitions and include those with records, HW or log-start changes, errors, preferred replicas", () => {
    const manager = managerWith();
    const partitions = [target(FOO, 0), target(FOO, 1), target(FOO, 2), target(FOO, 3), target(FOO, 4), target(FOO, 5)];
    const sessionId = createSession(manager, 0, partitions);
    // Every partition was cached with HW 10, LSO 0.
    const resp = incremental(manager, sessionId, 1, () => [
      read(FOO, 0),
      read(FOO, 1, { recordBytes: 100 }),
      read(FOO, 2, { highWatermark: 11 }),
      read(FOO, 3, { logStartOffset: 5 }),
      read(FOO, 4, { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }),
      read(FOO, 5, { preferredReadReplica: 2 }),
    ]);
    expect(responsePartitions(resp).map((p) => p.partition)).toEqual([1, 2, 3, 4, 5]);
    // Next round, nothing changed: only the preferred replica and the partition whose error reset its cached HW come back.
    const resp2 = incremental(manager, sessionId, 2, () => [
      read(FOO, 0),
      read(FOO, 1),
      read(FOO, 2, { highWatermark: 11 }),
      read(FOO, 3, { logStartOffset: 5 }),
      read(FOO, 4),
      read(FOO, 5, { preferredReadReplica: 2 }),
    ]);
    expect(responsePartitions(resp2).map((p) => p.partition)).toEqual([4, 5]);
    const resp3 = incremental(manager, sessionId, 3, () =>
      partitions.map((p) =>
        read(FOO, p.partition, p.partition === 2 ? { highWatermark: 11 } : p.partition === 3 ? { logStartOffset: 5 } : {}),
      ),
    );
    expect(resp3.responses).toEqual([]);
  });

  it("always include partitions with a diverging epoch (Kafka testDivergingEpoch)", () => {
    const manager = managerWith();
    const partitions = [
      target(FOO, 1, { fetchOffset: 100, currentLeaderEpoch: 5, lastFetchedEpoch: 4 }),
      target(BAR, 2, { fetchOffset: 100, currentLeaderEpoch: 5, lastFetchedEpoch: 4 }),
    ];
    const full = manager.newContext(request({ sessionId: 0, epoch: 0, partitions }), 0);
    let reads = [read(FOO, 1, { highWatermark: 105 }), read(BAR, 2, { highWatermark: 105, divergingEpoch: true })];
    const resp1 = full.updateAndGenerateResponse(reads, 0);
    expect(responsePartitions(resp1)).toEqual(keysOf(partitions));
    const ctx2 = manager.newContext(request({ sessionId: resp1.sessionId, epoch: 1, partitions }), 0);
    expect(responsePartitions(ctx2.updateAndGenerateResponse(reads, 0))).toEqual([{ topicId: BAR, partition: 2 }]);
    reads = [read(FOO, 1, { highWatermark: 105, divergingEpoch: true }), read(BAR, 2, { highWatermark: 105, divergingEpoch: true })];
    expect(responsePartitions(ctx2.updateAndGenerateResponse(reads, 0))).toHaveLength(2);
    reads = [read(FOO, 1, { highWatermark: 110 }), read(BAR, 2, { highWatermark: 105, divergingEpoch: true })];
    expect(responsePartitions(ctx2.updateAndGenerateResponse(reads, 0))).toHaveLength(2);
  });

  it("move only the partitions that returned records to the end of the session (Kafka testDeprioritizesPartitionsWithRecordsOnly)", () => {
    const manager = managerWith();
    const partitions = [target(FOO, 1, { fetchOffset: 100 }), target(BAR, 2, { fetchOffset: 100 }), target(ZAR, 3, { fetchOffset: 100 })];
    const full = manager.newContext(request({ sessionId: 0, epoch: 0, partitions }), 0);
    const resp1 = full.updateAndGenerateResponse(
      partitions.map((p) => read(p.topicId, p.partition, { highWatermark: 50 })),
      0,
    );
    const ctx2 = manager.newContext(request({ sessionId: resp1.sessionId, epoch: 1, partitions }), 0);
    expect(ctx2.kind).toBe("incremental");
    expect(keysOf(ctx2.partitions())).toEqual(keysOf(partitions));
    expect(ctx2.updateAndGenerateResponse([], 0).responses).toEqual([]);
    const resp3 = ctx2.updateAndGenerateResponse(
      [read(FOO, 1, { highWatermark: 60 }), read(BAR, 2, { highWatermark: 60, recordBytes: 80 }), read(ZAR, 3, { highWatermark: 50 })],
      0,
    );
    expect(responsePartitions(resp3)).toEqual([
      { topicId: FOO, partition: 1 },
      { topicId: BAR, partition: 2 },
    ]);
    expect(keysOf(ctx2.partitions())).toEqual([
      { topicId: FOO, partition: 1 },
      { topicId: ZAR, partition: 3 },
      { topicId: BAR, partition: 2 },
    ]);
    // The next request reads in the new order.
    expect(keysOf(manager.newContext(request({ sessionId: resp1.sessionId, epoch: 2 }), 0).partitions())).toEqual(
      keysOf(ctx2.partitions()),
    );
  });

  it("size a response without updating the session", () => {
    const manager = managerWith();
    const sessionId = createSession(manager);
    const ctx = manager.newContext(request({ sessionId, epoch: 1 }), 0);
    const reads = [read(FOO, 0, { highWatermark: 11 }), read(FOO, 1)];
    const bytes = ctx.responseBytes(reads);
    expect(ctx.responseBytes(reads)).toBe(bytes);
    const resp = ctx.updateAndGenerateResponse(reads, 0);
    expect(responsePartitions(resp)).toEqual([{ topicId: FOO, partition: 0 }]);
    expect(ctx.responseBytes(reads)).toBeLessThan(bytes); // now foo-0's HW is cached
    expect(ctx).toBeInstanceOf(IncrementalFetchContext);
  });
});

describe("eviction through the manager", () => {
  it("evicts the least recently used session, which an incremental fetch refreshes (Kafka testFetchSessionExpiration)", () => {
    const manager = managerWith(2, 1000);
    const s1 = createSession(manager, ms(0));
    expect(manager.cache.get(s1)).toBeDefined();
    const s2 = createSession(manager, ms(500));
    expect(manager.cache.get(s2)).toBeDefined();
    // Session 1 fetches incrementally at 1000 ms.
    incremental(manager, s1, 1, () => [], ms(1000));
    const s3 = createSession(manager, ms(1501));
    expect(manager.cache.get(s1)).toBeDefined();
    expect(manager.cache.get(s2), "session 2 was used least recently").toBeUndefined();
    expect(manager.cache.get(s3)).toBeDefined();
  });

  it("keeps privileged sessions over unprivileged ones until they age out (Kafka testPrivilegedSessionHandling)", () => {
    const manager = managerWith(2, 1000);
    const s1 = createSession(manager, ms(0), undefined, 1);
    expect(manager.cache.size).toBe(1);
    const s2 = createSession(manager, ms(500), undefined, -1);
    expect(manager.cache.size).toBe(2);
    const s3 = createSession(manager, ms(1000), undefined, 1);
    expect(manager.cache.get(s1)).toBeDefined();
    expect(manager.cache.get(s2), "the unprivileged session 2 was evicted by the privileged session 3").toBeUndefined();
    expect(manager.cache.get(s3)).toBeDefined();
    const s4 = createSession(manager, ms(1501), undefined, 1);
    expect(manager.cache.get(s1), "session 1 is privileged but idle past the eviction time").toBeUndefined();
    expect(manager.cache.get(s3)).toBeDefined();
    expect(manager.cache.get(s4)).toBeDefined();
    expect(manager.cache.size).toBe(2);
    expect(manager.cache.evictions.count).toBe(2);
  });

  it("answers a session evicted meanwhile with FETCH_SESSION_ID_NOT_FOUND", () => {
    const manager = managerWith(1, 1000);
    const s1 = createSession(manager, ms(0));
    createSession(manager, ms(2000)); // s1 idle for 2 s: evicted
    const resp = manager.newContext(request({ sessionId: s1, epoch: 1 }), ms(2001)).updateAndGenerateResponse([], ms(2001));
    expect(resp.errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  });
});
