import { idempotenceOf } from "@kcsim/fetch";
import { type ProducerConfig, resolveProducerConfig } from "@kcsim/protocol";
import type { OutputConfig } from "./processing-config.js";

/**
 * The resolved Kafka settings of an application's output producer
 * (`app.output.producer` over the defaults), for the transactional.id
 * given (null: the idempotent output). The output is always idempotent:
 * settings that would turn idempotence off are refused. Throws an Error
 * whose message names the problem.
 */
export function outputProducerSettings(output: OutputConfig, transactionalId: string | null): ProducerConfig {
  const given = output.producer;
  if ("transactional.id" in given) throw new Error("'transactional.id' is set by the member (<group id>-<actor id>), not in the config");
  const settings = resolveProducerConfig({ ...given, "transactional.id": transactionalId });
  const idempotent = idempotenceOf(settings, "enable.idempotence" in given, (setting, problem) => {
    throw new Error(`'${setting}' ${problem}`);
  });
  if (!idempotent) throw new Error("must keep the producer idempotent (acks=all, retries > 0, max.in.flight.requests.per.connection <= 5)");
  return { ...settings, "enable.idempotence": true };
}
