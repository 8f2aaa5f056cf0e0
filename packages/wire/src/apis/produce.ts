import { array, defineApi, field, int16, int32, int64, nullableField, records, string, struct } from "../schema/index.js";

/**
 * Produce (0), v0-7 (none flexible). KafkaJS 2.2.4 implements v0-7
 * (src/protocol/requests/produce); librdkafka 2.0.2 uses up to v7
 * (rdkafka_msgset_writer.c rd_kafka_ProduceRequest_max_version), v3+ once
 * the broker's range gives it MsgVer2 (rdkafka_feature.c). v0-2 stay in the
 * range although this endpoint reads no legacy message sets: librdkafka
 * 2.0.2 compresses (gzip, lz4) only if the broker's Produce range includes
 * v0 (rdkafka_msgset_writer.c compr_req). @platformatic/kafka 1.35.0
 * implements v7-11 (dist/apis/producer/produce-v<N>.js). All three clients
 * send v7. A v0-2 request's legacy records get UNSUPPORTED_FOR_MESSAGE_FORMAT
 * per partition (records/produce-records.ts).
 */
const ProduceRequest = struct("ProduceRequest", {
  transactionalId: nullableField(string, "3+", "3+"),
  acks: field(int16, "0+"),
  timeoutMs: field(int32, "0+"),
  topicData: field(
    array(
      struct("TopicProduceData", {
        name: field(string, "0+"),
        partitionData: field(
          array(struct("PartitionProduceData", { index: field(int32, "0+"), records: nullableField(records, "0+", "0+") })),
          "0+",
        ),
      }),
    ),
    "0+",
  ),
});

const PartitionProduceResponse = struct("PartitionProduceResponse", {
  index: field(int32, "0+"),
  errorCode: field(int16, "0+"),
  baseOffset: field(int64, "0+"),
  logAppendTimeMs: field(int64, "2+", { default: -1n, ignorable: true }),
  logStartOffset: field(int64, "5+", { default: -1n, ignorable: true }),
});

const ProduceResponse = struct("ProduceResponse", {
  responses: field(
    array(struct("TopicProduceResponse", { name: field(string, "0+"), partitionResponses: field(array(PartitionProduceResponse), "0+") })),
    "0+",
  ),
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
});

export const ProduceApi = defineApi({
  key: 0,
  name: "Produce",
  minVersion: 0,
  maxVersion: 7,
  flexibleFrom: 9,
  request: ProduceRequest,
  response: ProduceResponse,
});
export type ProduceRequest = ReturnType<typeof ProduceRequest.defaults>;
export type ProduceResponse = ReturnType<typeof ProduceResponse.defaults>;
