import type { Static, TObject } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { CodecError, decodeUnchecked, describeShapeError, encodeValue } from "./codec.js";
import { Bytes, Int, List, Nullable, Str, Struct } from "./messages/schema.js";

/**
 * The embedded consumer protocol of classic groups (spec 4.1): what a member
 * puts in JoinGroup's protocol metadata (`ConsumerProtocolSubscription` v0-3)
 * and what the leader hands out in SyncGroup (`ConsumerProtocolAssignment`).
 * On the wire these are opaque bytes to the coordinator.
 */
export const CONSUMER_PROTOCOL_TYPE = "consumer";

export const TopicPartitionList = List(Struct({ topic: Str, partitions: List(Int) }));
export type TopicPartitionList = Static<typeof TopicPartitionList>;

export const ConsumerProtocolSubscription = Struct({
  version: Int,
  topics: List(Str),
  userData: Nullable(Bytes),
  ownedPartitions: TopicPartitionList,
  generationId: Int,
  rackId: Nullable(Str),
});
export type ConsumerProtocolSubscription = Static<typeof ConsumerProtocolSubscription>;

export const ConsumerProtocolAssignment = Struct({
  version: Int,
  assignedPartitions: TopicPartitionList,
  userData: Nullable(Bytes),
});
export type ConsumerProtocolAssignment = Static<typeof ConsumerProtocolAssignment>;

/** A validating decoder; the schema is compiled on first use (compiling costs start-up time). */
function decoderFor<S extends TObject>(schema: S, name: string): (bytes: Uint8Array) => Static<S> {
  let check: TypeCheck<S> | undefined;
  return (bytes) => {
    check ??= TypeCompiler.Compile(schema);
    let value: unknown;
    try {
      value = decodeUnchecked(bytes);
    } catch (error) {
      throw new CodecError("malformed", `${name} does not decode (${error instanceof Error ? error.message : String(error)})`);
    }
    if (!check.Check(value)) throw new CodecError("invalid-shape", `${name}${describeShapeError(check.Errors(value))}`);
    return value;
  };
}

export const encodeSubscription = (s: ConsumerProtocolSubscription): Uint8Array => encodeValue(s);
export const decodeSubscription = decoderFor(ConsumerProtocolSubscription, "ConsumerProtocolSubscription");
export const encodeAssignment = (a: ConsumerProtocolAssignment): Uint8Array => encodeValue(a);
export const decodeAssignment = decoderFor(ConsumerProtocolAssignment, "ConsumerProtocolAssignment");
