import { API_BY_KEY, APIS, type ApiName, type WireRequestOf, type WireResponseOf } from "./apis/index.js";
import { API_VERSIONS_KEY, type RequestHeader, readHeaderRest, writeRequestHeader } from "./header.js";
import { Reader } from "./io/reader.js";
import { Writer } from "./io/writer.js";
import { type ApiDefinition, isFlexible, type WireContext } from "./schema/index.js";
import { asWireError, WireError } from "./wire-error.js";

/** A decoded request: which API, its header, its body at the header's version. */
export type WireRequest = { [N in ApiName]: { readonly api: N; readonly header: RequestHeader; readonly body: WireRequestOf<N> } }[ApiName];

/**
 * An ApiVersions request at a version this endpoint does not know. Kafka
 * reads only its header, treats it as v0 and answers UNSUPPORTED_VERSION
 * with the ApiVersions range, in a v0 response (RequestContext.parseRequest).
 */
export interface UnsupportedApiVersionsRequest {
  readonly api: "ApiVersions";
  readonly header: RequestHeader;
  readonly unsupportedVersion: true;
}

export type DecodedRequest = WireRequest | UnsupportedApiVersionsRequest;

const SIZE_PREFIX = 4;

function contextFor(api: ApiDefinition, version: number): WireContext {
  return { version, flexible: isFlexible(api, version) };
}

function requestHeaderVersion(api: ApiDefinition, version: number): 1 | 2 {
  return isFlexible(api, version) ? 2 : 1;
}

/** Response header v1 (with tagged fields) for flexible versions, v0 otherwise; ApiVersions always v0. */
function responseHeaderIsFlexible(api: ApiDefinition, version: number): boolean {
  return api.key !== API_VERSIONS_KEY && isFlexible(api, version);
}

export function isSupportedVersion(api: ApiDefinition, version: number): boolean {
  return version >= api.minVersion && version <= api.maxVersion;
}

/** A narrower set of versions than the definitions support (what a server advertised), by API key. */
export type VersionTable = ReadonlyMap<number, { readonly minVersion: number; readonly maxVersion: number }>;

/**
 * Decodes one request frame's payload (the bytes after the 4-byte size).
 * Throws only WireError: unknown-api-key and unsupported-version carry the
 * header fields read so far in `context`; nothing may follow the body.
 * With `versions`, a version outside that table is unsupported too (an API
 * missing from it is unknown).
 */
export function decodeRequest(payload: Uint8Array, versions?: VersionTable): DecodedRequest {
  const reader = new Reader(payload);
  if (payload.length < 8) throw new WireError("truncated", `a request header needs at least 8 bytes, the frame has ${payload.length}`);
  const apiKey = reader.int16();
  const apiVersion = reader.int16();
  const correlationId = reader.int32();
  const api = API_BY_KEY.get(apiKey);
  const advertised = versions === undefined ? api : versions.get(apiKey);
  if (api === undefined || advertised === undefined) {
    throw new WireError("unknown-api-key", `API key ${apiKey} (version ${apiVersion}, correlation id ${correlationId}) is not supported`, {
      apiKey,
      apiVersion,
      correlationId,
    });
  }
  const context = { apiKey, apiVersion, correlationId };
  try {
    if (!isSupportedVersion(api, apiVersion) || apiVersion < advertised.minVersion || apiVersion > advertised.maxVersion) {
      if (apiKey === API_VERSIONS_KEY) {
        // Kafka derives the header version from the version even when it does not know it (ApiKeys.requestHeaderVersion).
        const clientId = readHeaderRest(reader, apiVersion >= api.flexibleFrom ? 2 : 1);
        return { api: "ApiVersions", header: { apiKey, apiVersion, correlationId, clientId }, unsupportedVersion: true };
      }
      throw new WireError(
        "unsupported-version",
        `${api.name} v${apiVersion} is not supported (v${api.minVersion}-${api.maxVersion} are)`,
        context,
      );
    }
    const clientId = readHeaderRest(reader, requestHeaderVersion(api, apiVersion));
    const body = api.request.read(reader, contextFor(api, apiVersion));
    if (reader.remaining !== 0) {
      throw new WireError(
        "trailing-bytes",
        `${reader.remaining} bytes after ${api.name} v${apiVersion} request at offset ${reader.offset}`,
        {
          offset: reader.offset,
        },
      );
    }
    return { api: api.name, header: { apiKey, apiVersion, correlationId, clientId }, body } as WireRequest;
  } catch (error) {
    throw asWireError(error).withContext(context);
  }
}

function startFrame(): Writer {
  const writer = new Writer(512);
  writer.int32(0);
  return writer;
}

function finishFrame(writer: Writer): Uint8Array {
  writer.patchInt32(0, writer.length - SIZE_PREFIX);
  return writer.finish();
}

function apiNamed(name: ApiName): ApiDefinition {
  return APIS[name] as ApiDefinition;
}

function checkVersion(api: ApiDefinition, version: number): void {
  if (!isSupportedVersion(api, version))
    throw new WireError("unencodable", `${api.name} v${version} is not supported (v${api.minVersion}-${api.maxVersion} are)`);
}

/** Encodes a response as a whole frame (4-byte size prefix, header, body) at the request's version. */
export function encodeResponse<N extends ApiName>(name: N, version: number, correlationId: number, body: WireResponseOf<N>): Uint8Array {
  const api = apiNamed(name);
  checkVersion(api, version);
  const writer = startFrame();
  writer.int32(correlationId);
  if (responseHeaderIsFlexible(api, version)) writer.uvarint(0);
  api.response.write(writer, body, contextFor(api, version));
  return finishFrame(writer);
}

/** Encodes a request as a whole frame: what a client writes to the socket. */
export function encodeRequest<N extends ApiName>(name: N, header: Omit<RequestHeader, "apiKey">, body: WireRequestOf<N>): Uint8Array {
  const api = apiNamed(name);
  checkVersion(api, header.apiVersion);
  const writer = startFrame();
  writeRequestHeader(writer, { ...header, apiKey: api.key }, requestHeaderVersion(api, header.apiVersion));
  api.request.write(writer, body, contextFor(api, header.apiVersion));
  return finishFrame(writer);
}

/** Decodes a response frame's payload, given the API and version of the request it answers (as a client does). */
export function decodeResponse<N extends ApiName>(
  name: N,
  version: number,
  payload: Uint8Array,
): { correlationId: number; body: WireResponseOf<N> } {
  const api = apiNamed(name);
  try {
    checkVersion(api, version);
    const reader = new Reader(payload);
    const correlationId = reader.int32();
    if (responseHeaderIsFlexible(api, version)) readHeaderTags(reader);
    const body = api.response.read(reader, contextFor(api, version)) as WireResponseOf<N>;
    if (reader.remaining !== 0)
      throw new WireError("trailing-bytes", `${reader.remaining} bytes after ${api.name} v${version} response`, { offset: reader.offset });
    return { correlationId, body };
  } catch (error) {
    throw asWireError(error).withContext({ apiKey: api.key, apiVersion: version });
  }
}

function readHeaderTags(reader: Reader): void {
  const count = reader.uvarint();
  if (count * 2 > reader.remaining)
    throw new WireError("invalid-length", `${count} header tagged fields, only ${reader.remaining} bytes left`);
  for (let i = 0; i < count; i++) {
    reader.uvarint();
    reader.skip(reader.uvarint(), "header tagged field");
  }
}

/** Decodes only a request body (no header), as KafkaJS's fixtures hold it. */
export function decodeRequestBody<N extends ApiName>(name: N, version: number, body: Uint8Array): WireRequestOf<N> {
  return decodeBody(apiNamed(name), "request", version, body) as WireRequestOf<N>;
}

/** Decodes only a response body (no header). */
export function decodeResponseBody<N extends ApiName>(name: N, version: number, body: Uint8Array): WireResponseOf<N> {
  return decodeBody(apiNamed(name), "response", version, body) as WireResponseOf<N>;
}

export function encodeRequestBody<N extends ApiName>(name: N, version: number, body: WireRequestOf<N>): Uint8Array {
  return encodeBody(apiNamed(name), "request", version, body);
}

export function encodeResponseBody<N extends ApiName>(name: N, version: number, body: WireResponseOf<N>): Uint8Array {
  return encodeBody(apiNamed(name), "response", version, body);
}

function decodeBody(api: ApiDefinition, side: "request" | "response", version: number, bytes: Uint8Array): unknown {
  try {
    checkVersion(api, version);
    const reader = new Reader(bytes);
    const value = api[side].read(reader, contextFor(api, version));
    if (reader.remaining !== 0)
      throw new WireError("trailing-bytes", `${reader.remaining} bytes after ${api.name} v${version} ${side}`, { offset: reader.offset });
    return value;
  } catch (error) {
    throw asWireError(error).withContext({ apiKey: api.key, apiVersion: version });
  }
}

function encodeBody(api: ApiDefinition, side: "request" | "response", version: number, value: unknown): Uint8Array {
  checkVersion(api, version);
  const writer = new Writer();
  api[side].write(writer, value, contextFor(api, version));
  return writer.finish();
}
