import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { API_LIST, decodeStruct, encodeStruct, isFlexible, wireEquals } from "../src/index.js";
import { arbitraryStruct } from "./support/arbitrary.js";

// Every API, every supported version, both directions: any value the schema
// allows encodes, decodes back equal, and re-encodes to the same bytes.
describe.each(API_LIST.map((api) => [api.name, api] as const))("%s", (_name, api) => {
  const versions = Array.from({ length: api.maxVersion - api.minVersion + 1 }, (_, i) => api.minVersion + i);
  test.each(versions)("v%i request and response round-trip", (version) => {
    const ctx = { version, flexible: isFlexible(api, version) };
    for (const side of ["request", "response"] as const) {
      const type = api[side];
      fc.assert(
        fc.property(arbitraryStruct(type, ctx), (value) => {
          const bytes = encodeStruct(type, value, ctx);
          const decoded = decodeStruct(type, bytes, ctx);
          expect(wireEquals(decoded, value)).toBe(true);
          expect(Buffer.from(encodeStruct(type, decoded, ctx)).equals(Buffer.from(bytes))).toBe(true);
        }),
        { numRuns: 60 },
      );
    }
  });
});
