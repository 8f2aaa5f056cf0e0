import { array, bool, defineApi, field, int16, int32, int64, string, struct } from "../schema/index.js";

/**
 * ApiVersions (18), v0-3; flexible from v3, but its response header is
 * always v0 (so a client that sent a version the broker does not know can
 * still read the answer). KafkaJS 2.2.4 tries v2, then lower
 * (src/broker/index.js apiVersions); librdkafka 2.0.2 sends v3 first and
 * retries at the broker's maximum (rdkafka_request.c rd_kafka_ApiVersionRequest);
 * @platformatic/kafka 1.35.0 always sends v3 (dist/clients/base/base.js kListApis).
 */
const ApiVersionsRequest = struct("ApiVersionsRequest", {
  clientSoftwareName: field(string, "3+", { ignorable: true }),
  clientSoftwareVersion: field(string, "3+", { ignorable: true }),
});

const ApiVersion = struct("ApiVersion", {
  apiKey: field(int16, "0+"),
  minVersion: field(int16, "0+"),
  maxVersion: field(int16, "0+"),
});

const SupportedFeatureKey = struct("SupportedFeatureKey", {
  name: field(string, "3+"),
  minVersion: field(int16, "3+"),
  maxVersion: field(int16, "3+"),
});

const FinalizedFeatureKey = struct("FinalizedFeatureKey", {
  name: field(string, "3+"),
  maxVersionLevel: field(int16, "3+"),
  minVersionLevel: field(int16, "3+"),
});

const ApiVersionsResponse = struct("ApiVersionsResponse", {
  errorCode: field(int16, "0+"),
  apiKeys: field(array(ApiVersion), "0+"),
  throttleTimeMs: field(int32, "1+", { ignorable: true }),
  supportedFeatures: field(array(SupportedFeatureKey), "3+", { tag: 0, ignorable: true }),
  finalizedFeaturesEpoch: field(int64, "3+", { tag: 1, default: -1n, ignorable: true }),
  finalizedFeatures: field(array(FinalizedFeatureKey), "3+", { tag: 2, ignorable: true }),
  zkMigrationReady: field(bool, "3+", { tag: 3, default: false, ignorable: true }),
});

export const ApiVersionsApi = defineApi({
  key: 18,
  name: "ApiVersions",
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 3,
  request: ApiVersionsRequest,
  response: ApiVersionsResponse,
});
export type ApiVersionsRequest = ReturnType<typeof ApiVersionsRequest.defaults>;
export type ApiVersionsResponse = ReturnType<typeof ApiVersionsResponse.defaults>;
export type ApiVersionEntry = ReturnType<typeof ApiVersion.defaults>;
