import { readFileSync } from "node:fs";
import { join } from "node:path";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");

/** KafkaJS 2.2.4's protocol fixtures for one API (bodies without headers), name -> bytes. */
export function kafkajsFixtures(api: string): Map<string, Uint8Array> {
  const { fixtures } = JSON.parse(readFileSync(join(FIXTURES, "kafkajs", `${api}.json`), "utf8")) as { fixtures: Record<string, string> };
  return new Map(Object.entries(fixtures).map(([name, hex]) => [name, Buffer.from(hex, "hex")]));
}

/** Request frame payloads captured from a real client ("librdkafka" or "kafkajs-live"), "Api vN" -> bytes. */
export function capturedFrames(client: "librdkafka" | "kafkajs-live"): Map<string, Uint8Array> {
  const { frames } = JSON.parse(readFileSync(join(FIXTURES, client, "requests.json"), "utf8")) as { frames: Record<string, string> };
  return new Map(Object.entries(frames).map(([name, hex]) => [name, Buffer.from(hex, "hex")]));
}

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
