import { ConfigError, type ProducerConfig } from "@kcsim/protocol";

/** Kafka's `MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION_FOR_IDEMPOTENCE`: the broker remembers a producer's last five batches. */
export const MAX_IN_FLIGHT_FOR_IDEMPOTENCE = 5;

/**
 * Whether a producer is idempotent, by Kafka's rules
 * (`ProducerConfig.postProcessAndValidateIdempotenceConfigs`):
 * enable.idempotence defaults to true, but an unset value gives way to
 * settings it conflicts with (retries = 0, acks other than all,
 * max.in.flight.requests.per.connection > 5), while an explicit true with
 * such a setting is a config error; a transactional.id needs idempotence.
 * `fail(setting, problem)` throws the caller's ConfigError.
 */
export function idempotenceOf(
  settings: ProducerConfig,
  explicitlySet: boolean,
  fail: (setting: string, problem: string) => never = (setting, problem) => {
    throw new ConfigError(`producer config '${setting}' ${problem}`);
  },
): boolean {
  let idempotent = settings["enable.idempotence"];
  if (idempotent) {
    const acksAll = settings.acks === "all" || settings.acks === "-1";
    if (settings.retries === 0) {
      if (explicitlySet) fail("retries", "must be non-zero when using the idempotent producer");
      idempotent = false;
    }
    if (!acksAll) {
      if (explicitlySet) fail("acks", "must be all in order to use the idempotent producer");
      idempotent = false;
    }
    if (settings["max.in.flight.requests.per.connection"] > MAX_IN_FLIGHT_FOR_IDEMPOTENCE) {
      if (explicitlySet)
        fail("max.in.flight.requests.per.connection", `must be at most ${MAX_IN_FLIGHT_FOR_IDEMPOTENCE} to use the idempotent producer`);
      idempotent = false;
    }
  }
  if (!idempotent && settings["transactional.id"] !== null) fail("transactional.id", "cannot be set without also enabling idempotence");
  return idempotent;
}
