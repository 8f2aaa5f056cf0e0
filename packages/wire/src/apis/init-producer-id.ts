import { defineApi, field, int16, int32, int64, nullableField, string, struct } from "../schema/index.js";

/**
 * InitProducerId (22), v0-4; flexible from v2. KafkaJS 2.2.4 implements
 * v0-1 (src/protocol/requests/initProducerId); librdkafka 2.0.2 asks 0-4,
 * and 3-4 when it bumps an epoch (rdkafka_request.c rd_kafka_InitProducerIdRequest);
 * librdkafka's IdempotentProducer feature needs v0 in the range.
 * @platformatic/kafka 1.35.0 implements v3-5
 * (dist/apis/producer/init-producer-id-v<N>.js), so it sends v4 here.
 */
const InitProducerIdRequest = struct("InitProducerIdRequest", {
  transactionalId: nullableField(string, "0+", "0+"),
  transactionTimeoutMs: field(int32, "0+"),
  producerId: field(int64, "3+", { default: -1n }),
  producerEpoch: field(int16, "3+", { default: -1 }),
});

const InitProducerIdResponse = struct("InitProducerIdResponse", {
  throttleTimeMs: field(int32, "0+", { ignorable: true }),
  errorCode: field(int16, "0+"),
  producerId: field(int64, "0+"),
  producerEpoch: field(int16, "0+"),
});

export const InitProducerIdApi = defineApi({
  key: 22,
  name: "InitProducerId",
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 2,
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
});
export type InitProducerIdRequest = ReturnType<typeof InitProducerIdRequest.defaults>;
export type InitProducerIdResponse = ReturnType<typeof InitProducerIdResponse.defaults>;
