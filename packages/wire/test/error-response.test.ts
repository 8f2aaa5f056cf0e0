import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  API_LIST,
  type ApiName,
  decodeResponse,
  encodeResponse,
  errorResponseFor,
  isFlexible,
  type WireRequest,
  type WireRequestOf,
} from "../src/index.js";
import { arbitraryStruct } from "./support/arbitrary.js";

/**
 * Every error code a decoded response carries: its top-level one (0 where the version has none), then each
 * topic's and partition's, each group's (OffsetFetch v8+) with its topics' partitions, and each coordinator's
 * (FindCoordinator v4+).
 */
function errorCodesOf(body: Record<string, unknown>): { top: number; nested: number[] } {
  type Topic = { errorCode?: number; partitions?: { errorCode: number }[]; partitionResponses?: { errorCode: number }[] };
  type Group = { errorCode: number; topics: Topic[] };
  const topics = ((body.responses ?? body.topics) as Topic[] | undefined) ?? [];
  const nested: number[] = [];
  const addTopics = (list: readonly Topic[]) => {
    for (const topic of list) {
      if (typeof topic.errorCode === "number") nested.push(topic.errorCode);
      for (const p of topic.partitions ?? topic.partitionResponses ?? []) nested.push(p.errorCode);
    }
  };
  addTopics(topics);
  for (const group of (body.groups as Group[] | undefined) ?? []) {
    nested.push(group.errorCode);
    addTopics(group.topics);
  }
  for (const coordinator of (body.coordinators as { errorCode: number }[] | undefined) ?? []) nested.push(coordinator.errorCode);
  return { top: typeof body.errorCode === "number" ? body.errorCode : 0, nested };
}

/** The versions with a top-level error code, per API, as [first, last] (none: every error is per topic or partition). */
const TOP_LEVEL: Partial<Record<ApiName, readonly [number, number]>> = {
  Fetch: [7, Number.POSITIVE_INFINITY],
  // v8+ answers per group, v4+ per coordinator key: the top-level error code is gone.
  OffsetFetch: [2, 7],
  FindCoordinator: [0, 3],
  JoinGroup: [0, Number.POSITIVE_INFINITY],
  Heartbeat: [0, Number.POSITIVE_INFINITY],
  LeaveGroup: [0, Number.POSITIVE_INFINITY],
  SyncGroup: [0, Number.POSITIVE_INFINITY],
  ApiVersions: [0, Number.POSITIVE_INFINITY],
  InitProducerId: [0, Number.POSITIVE_INFINITY],
  ConsumerGroupHeartbeat: [0, Number.POSITIVE_INFINITY],
};

/** How many entries of a batched request the error answer must carry: one per group or coordinator key named. */
function batchedEntries(request: WireRequest, body: Record<string, unknown>): { asked: number; answered: number } | undefined {
  if (request.api === "OffsetFetch" && request.header.apiVersion >= 8)
    return { asked: request.body.groups.length, answered: (body.groups as unknown[]).length };
  if (request.api === "FindCoordinator" && request.header.apiVersion >= 4)
    return { asked: request.body.coordinatorKeys.length, answered: (body.coordinators as unknown[]).length };
  return undefined;
}

// Every API at every version: the error answer for any request encodes at the request's version and carries the error.
describe.each(API_LIST.map((api) => [api.name, api] as const))("%s", (name, api) => {
  const versions = Array.from({ length: api.maxVersion - api.minVersion + 1 }, (_, i) => api.minVersion + i);
  test.each(versions)("v%i error response encodes and carries the error", (version) => {
    const ctx = { version, flexible: isFlexible(api, version) };
    fc.assert(
      fc.property(arbitraryStruct(api.request, ctx), (body) => {
        const request = {
          api: name,
          header: { apiKey: api.key, apiVersion: version, correlationId: 7, clientId: "c" },
          body: body as WireRequestOf<ApiName>,
        } as WireRequest;
        const response = errorResponseFor(request, 16, "not here");
        const frame = encodeResponse(name, version, 7, response as never);
        const decoded = decodeResponse(name, version, frame.subarray(4));
        expect(decoded.correlationId).toBe(7);
        const decodedBody = decoded.body as unknown as Record<string, unknown>;
        const { top, nested } = errorCodesOf(decodedBody);
        // Where the version has a top-level error it is the error; every topic and partition named carries it too.
        const range = TOP_LEVEL[name];
        expect(top).toBe(range !== undefined && version >= range[0] && version <= range[1] ? 16 : 0);
        for (const code of nested) expect(code).toBe(16);
        // A batched request gets an entry, carrying the error, for each group or key it names.
        const batched = batchedEntries(request, decodedBody);
        if (batched !== undefined) expect(batched.answered).toBe(batched.asked);
      }),
      { numRuns: 25 },
    );
  });
});
