import type { Static } from "@sinclair/typebox";
import { RecordBatch } from "./records.js";
import { Int, List, Nullable, request, response, Str, Struct } from "./schema.js";

/** Produce (API key 0). `acks`: 0, 1 or -1 (all). */
export const ProduceRequest = request("ProduceRequest", {
  transactionalId: Nullable(Str),
  acks: Int,
  timeoutMs: Int,
  topicData: List(Struct({ name: Str, partitionData: List(Struct({ index: Int, records: RecordBatch })) })),
});
export type ProduceRequest = Static<typeof ProduceRequest>;

export const ProduceResponse = response("ProduceResponse", {
  throttleTimeMs: Int,
  responses: List(
    Struct({
      name: Str,
      partitionResponses: List(
        Struct({
          index: Int,
          errorCode: Int,
          baseOffset: Int,
          logAppendTimeMs: Int,
          logStartOffset: Int,
          errorMessage: Nullable(Str),
        }),
      ),
    }),
  ),
});
export type ProduceResponse = Static<typeof ProduceResponse>;
