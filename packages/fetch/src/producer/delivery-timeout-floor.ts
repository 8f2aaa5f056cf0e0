import { ConfigError, type ProducerConfig } from "@kcsim/protocol";

/**
 * Kafka's rule for delivery.timeout.ms (`KafkaProducer.configureDeliveryTimeout`):
 * it must be at least linger.ms + request.timeout.ms; a value set that low
 * is a config error, an unset default is raised to that floor.
 */
export function withDeliveryTimeoutFloor(
  settings: ProducerConfig,
  explicitlySet: boolean,
  fail: (setting: string, problem: string) => never = (setting, problem) => {
    throw new ConfigError(`producer config '${setting}' ${problem}`);
  },
): ProducerConfig {
  const floor = settings["linger.ms"] + settings["request.timeout.ms"];
  if (settings["delivery.timeout.ms"] >= floor) return settings;
  if (explicitlySet)
    fail("delivery.timeout.ms", `= ${settings["delivery.timeout.ms"]} must be at least linger.ms + request.timeout.ms = ${floor}`);
  return { ...settings, "delivery.timeout.ms": floor };
}
