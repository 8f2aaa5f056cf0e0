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

/** Every error code a decoded response carries: its top-level one (0 where the version has none), then each topic's and partition's. */
function errorCodesOf(body: Record<string, unknown>): { top: number; nested: number[] } {
  type Topic = { errorCode?: number; partitions?: { errorCode: number }[]; partitionResponses?: { errorCode: number }[] };
  const topics = ((body.responses ?? body.topics) as Topic[] | undefined) ?? [];
  const nested: number[] = [];
  for (const topic of topics) {
    if (typeof topic.errorCode === "number") nested.push(topic.errorCode);
    for (const p of topic.partitions ?? topic.partitionResponses ?? []) nested.push(p.errorCode);
  }
  return { top: typeof body.errorCode === "number" ? body.errorCode : 0, nested };
}

/** The first version with a top-level error code, per API (none: every error is per topic or partition). */
const TOP_LEVEL_FROM: Partial<Record<ApiName, number>> = {
  Fetch: 7,
  OffsetFetch: 2,
  FindCoordinator: 0,
  JoinGroup: 0,
  Heartbeat: 0,
  LeaveGroup: 0,
  SyncGroup: 0,
  ApiVersions: 0,
  InitProducerId: 0,
  ConsumerGroupHeartbeat: 0,
};

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
        const { top, nested } = errorCodesOf(decoded.body as unknown as Record<string, unknown>);
        // Where the version has a top-level error it is the error; every topic and partition named carries it too.
        const from = TOP_LEVEL_FROM[name];
        expect(top).toBe(from !== undefined && version >= from ? 16 : 0);
        for (const code of nested) expect(code).toBe(16);
      }),
      { numRuns: 25 },
    );
  });
});
