import type { StructType } from "./struct.js";

/**
 * One Kafka API as this endpoint speaks it: its key, the versions it
 * supports (exactly what ApiVersions advertises), the first flexible version
 * in Kafka's spec, and the request and response structs.
 */
export interface ApiDefinition<Name extends string = string, Req = unknown, Res = unknown> {
  readonly key: number;
  readonly name: Name;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** First flexible version (compact encodings, tagged fields, header v2/v1); Infinity when none. */
  readonly flexibleFrom: number;
  readonly request: StructType<Req>;
  readonly response: StructType<Res>;
}

export type RequestOf<A> = A extends ApiDefinition<string, infer Req, unknown> ? Req : never;
export type ResponseOf<A> = A extends ApiDefinition<string, unknown, infer Res> ? Res : never;

export function defineApi<Name extends string, Req, Res>(definition: ApiDefinition<Name, Req, Res>): ApiDefinition<Name, Req, Res> {
  const { minVersion, maxVersion } = definition;
  if (!(Number.isInteger(minVersion) && Number.isInteger(maxVersion) && 0 <= minVersion && minVersion <= maxVersion)) {
    throw new RangeError(`${definition.name}: bad version range ${minVersion}-${maxVersion}`);
  }
  return definition;
}

export function isFlexible(api: ApiDefinition, version: number): boolean {
  return version >= api.flexibleFrom;
}
