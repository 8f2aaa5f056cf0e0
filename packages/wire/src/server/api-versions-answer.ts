import { ErrorCode } from "@kcsim/protocol";
import { type ApiVersionEntry, ApiVersionsApi, type ApiVersionsResponse } from "../apis/api-versions.js";
import { API_BY_KEY, API_LIST } from "../apis/index.js";
import type { DecodedRequest } from "../codec.js";

/** Exactly what this endpoint supports, one entry per API, ascending by key. */
export const SUPPORTED_API_VERSIONS: readonly ApiVersionEntry[] = API_LIST.map((api) => ({
  apiKey: api.key,
  minVersion: api.minVersion,
  maxVersion: api.maxVersion,
}));

/**
 * A narrower table (e.g. to make a client negotiate down to an older
 * version): each entry must name a known API and lie within what it supports.
 */
export function restrictApiVersions(entries: readonly ApiVersionEntry[]): readonly ApiVersionEntry[] {
  for (const entry of entries) {
    const api = API_BY_KEY.get(entry.apiKey);
    if (api === undefined) throw new RangeError(`API key ${entry.apiKey} is not supported`);
    if (entry.minVersion < api.minVersion || entry.maxVersion > api.maxVersion || entry.minVersion > entry.maxVersion) {
      throw new RangeError(`${api.name} v${entry.minVersion}-${entry.maxVersion} is outside v${api.minVersion}-${api.maxVersion}`);
    }
  }
  return [...entries].sort((a, b) => a.apiKey - b.apiKey);
}

/** ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN (KIP-511). */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export interface ApiVersionsAnswer {
  /** The version to encode the response at (0 for a request at an unknown version). */
  readonly version: number;
  readonly body: ApiVersionsResponse;
}

/**
 * The broker's answer to ApiVersions (KafkaApis.handleApiVersionsRequest):
 *  - at a version it does not know: UNSUPPORTED_VERSION with only the
 *    ApiVersions range, as v0 (the client retries at that range's maximum);
 *  - v3+ with a client software name or version outside KIP-511's pattern: INVALID_REQUEST;
 *  - otherwise the table, no features.
 */
export function answerApiVersions(
  request: DecodedRequest & { api: "ApiVersions" },
  table: readonly ApiVersionEntry[] = SUPPORTED_API_VERSIONS,
): ApiVersionsAnswer {
  const base = ApiVersionsApi.response.defaults();
  if ("unsupportedVersion" in request) {
    const own = table.find((entry) => entry.apiKey === ApiVersionsApi.key);
    return { version: 0, body: { ...base, errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: own ? [{ ...own }] : [] } };
  }
  const version = request.header.apiVersion;
  if (
    version >= 3 &&
    !(SOFTWARE_NAME_VERSION.test(request.body.clientSoftwareName) && SOFTWARE_NAME_VERSION.test(request.body.clientSoftwareVersion))
  ) {
    return { version, body: { ...base, errorCode: ErrorCode.INVALID_REQUEST } };
  }
  return { version, body: { ...base, apiKeys: table.map((entry) => ({ ...entry })) } };
}
