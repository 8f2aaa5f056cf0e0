import { createHash } from "node:crypto";
import { uuidBytes } from "../schema/primitives.js";

/**
 * The Kafka Uuids that kcsim topic ids travel as on the wire (Metadata v10+,
 * ConsumerGroupHeartbeat), both ways. A kcsim topic id is any string: the
 * ones kcsim makes look like Kafka's (22 base64url characters) but need not
 * decode to exactly 16 bytes, and a scenario may name its own. An id that is
 * a Kafka Uuid already travels as itself; any other as the first 16 bytes of
 * its SHA-256, so a topic keeps one Uuid for the whole run.
 */
export class TopicUuids {
  readonly #toKafka = new Map<string, string>();
  readonly #toKcsim = new Map<string, string>();

  /** The Kafka Uuid (string form) of a kcsim topic id. */
  kafkaIdOf(topicId: string): string {
    const known = this.#toKafka.get(topicId);
    if (known !== undefined) return known;
    const kafkaId =
      uuidBytes(topicId) !== undefined ? topicId : createHash("sha256").update(topicId).digest().subarray(0, 16).toString("base64url");
    const taken = this.#toKcsim.get(kafkaId);
    if (taken !== undefined) throw new Error(`topic ids ${taken} and ${topicId} map to the same Kafka Uuid ${kafkaId}`);
    this.#toKafka.set(topicId, kafkaId);
    this.#toKcsim.set(kafkaId, topicId);
    return kafkaId;
  }

  /** The kcsim topic id a Kafka Uuid stands for, if kafkaIdOf gave it out. */
  kcsimIdOf(kafkaId: string): string | undefined {
    return this.#toKcsim.get(kafkaId);
  }
}
