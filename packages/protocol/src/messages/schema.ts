import { type TObject, type TProperties, type TSchema, Type } from "@sinclair/typebox";

/**
 * Schema building blocks shared by every message definition. All fields are
 * required; Kafka's nullable fields are `T | null`, never optional, so that
 * every message of a type has the same keys in the same order (which is what
 * lets the codec's frozen shared structures apply).
 */
export const Int = Type.Integer();
export const Str = Type.String();
export const Bool = Type.Boolean();
export const Bytes = Type.Uint8Array();
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const List = <T extends TSchema>(schema: T) => Type.Array(schema);
export const Struct = <P extends TProperties>(properties: P): TObject<P> => Type.Object(properties, { additionalProperties: false });

/** Kafka's request header, carried by every request. */
const requestHeader = {
  correlationId: Int,
  apiVersion: Int,
  clientId: Str,
};

/** Kafka's response header: the correlation id of the request it answers. */
const responseHeader = {
  correlationId: Int,
};

export const request = <N extends string, P extends TProperties>(name: N, fields: P) =>
  Struct({ type: Type.Literal(name), ...requestHeader, ...fields });

export const response = <N extends string, P extends TProperties>(name: N, fields: P) =>
  Struct({ type: Type.Literal(name), ...responseHeader, ...fields });

/** A message that is not a Kafka RPC (simulation-internal), with only a type tag. */
export const simMessage = <N extends string, P extends TProperties>(name: N, fields: P) => Struct({ type: Type.Literal(name), ...fields });
