import { readFileSync } from "node:fs";
import { join } from "node:path";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");

/** KafkaJS 2.2.4's protocol fixtures for one API (bodies without headers), name -> bytes. */
export function kafkajsFixtures(api: string): Map<string, Uint8Array> {
  const { fixtures } = JSON.parse(readFileSync(join(FIXTURES, "kafkajs", `${api}.json`), "utf8")) as { fixtures: Record<string, string> };
  return new Map(Object.entries(fixtures).map(([name, hex]) => [name, Buffer.from(hex, "hex")]));
}

/** The real clients whose request frames test/client-capture.test.ts captured into fixtures/<client>/requests.json. */
export const CAPTURED_CLIENTS = ["librdkafka", "kafkajs-live", "platformatic"] as const;
export type CapturedClient = (typeof CAPTURED_CLIENTS)[number];

interface CapturedFile {
  readonly frames: Record<string, string>;
  /** Frames the client sent that do not decode (its own mistakes), with the error. */
  readonly rejected?: Record<string, { readonly frame: string; readonly error: string }>;
}

const readCaptured = (client: CapturedClient): CapturedFile =>
  JSON.parse(readFileSync(join(FIXTURES, client, "requests.json"), "utf8")) as CapturedFile;

/** Request frame payloads captured from a real client, "Api vN" -> bytes. */
export function capturedFrames(client: CapturedClient): Map<string, Uint8Array> {
  return new Map(Object.entries(readCaptured(client).frames).map(([name, hex]) => [name, Buffer.from(hex, "hex")]));
}

/** Frames a real client sent that do not decode, "Api vN" -> bytes and the decoder's error. */
export function rejectedFrames(client: CapturedClient): Map<string, { frame: Uint8Array; error: string }> {
  return new Map(
    Object.entries(readCaptured(client).rejected ?? {}).map(([name, { frame, error }]) => [
      name,
      { frame: Buffer.from(frame, "hex"), error },
    ]),
  );
}

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
