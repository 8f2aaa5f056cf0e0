import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { API_BY_KEY, API_LIST, decodeRequest, readRecordBatches, restrictApiVersions } from "../src/index.js";
import { kafkajsSession } from "./support/kafkajs-session.js";
import { kcatSession } from "./support/kcat.js";
import { ToyBroker } from "./support/toy-broker.js";

/**
 * Captures the request bytes real clients send, at every version they
 * speak, into fixtures/<client>/requests.json: librdkafka 2.0.2 (Debian's
 * kcat 1.7.1) and KafkaJS 2.2.4. It runs only with KCSIM_WIRE_CAPTURE=1:
 * the fixtures are captured once and committed. Each round caps every
 * API's maximum version at a level (0..11, twice, never below the API's minimum)
 * so the client negotiates down to it, then runs the client's session
 * (support/kcat.ts, support/kafkajs-session.ts) against the toy broker.
 */
const CLIENTS = {
  librdkafka: { session: (bootstrap: string) => kcatSession(bootstrap), client: "kcat 1.7.1 / librdkafka 2.0.2 (Debian bookworm)" },
  "kafkajs-live": { session: (bootstrap: string) => kafkajsSession(bootstrap), client: "KafkaJS 2.2.4 (npm)" },
} as const;

for (const [name, { session, client }] of Object.entries(CLIENTS)) {
  test.skipIf(process.env.KCSIM_WIRE_CAPTURE !== "1")(
    `capture ${name} request frames at every version`,
    async () => {
      const frames = new Map<string, string>();
      // Two passes: what a client sends at a low level depends on timing (a
      // consumer that finds no data commits nothing), so one pass can miss a frame.
      for (let round = 0; round < 24; round++) {
        const level = round % 12;
        const table = restrictApiVersions(
          API_LIST.map((api) => ({
            apiKey: api.key,
            minVersion: api.minVersion,
            maxVersion: Math.max(api.minVersion, Math.min(api.maxVersion, level)),
          })),
        );
        const broker = await new ToyBroker({ apiVersions: table }).start();
        try {
          await Promise.race([session(broker.bootstrap), new Promise((resolve) => setTimeout(resolve, 60_000))]);
        } catch {
          // a client that gives up at some level still leaves its frames
        } finally {
          await broker.stop();
        }
        for (const captured of broker.frames) {
          const api = API_BY_KEY.get(captured.apiKey);
          const key = `${api?.name ?? captured.apiKey} v${captured.apiVersion}${variantOf(captured.payload)}`;
          if (!frames.has(key)) frames.set(key, Buffer.from(captured.payload).toString("hex"));
        }
      }
      const sorted = Object.fromEntries([...frames].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true })));
      const out = {
        source: `request frame payloads (header + body, no size prefix) sent by ${client} to test/support/toy-broker.ts, captured by test/client-capture.test.ts with KCSIM_WIRE_CAPTURE=1`,
        frames: sorted,
      };
      writeFileSync(join(import.meta.dirname, "fixtures", name, "requests.json"), `${JSON.stringify(out, null, 1)}\n`);
      expect(frames.size).toBeGreaterThan(0);
    },
    600_000,
  );
}

/** Produce frames are kept once per compression codec too (" gzip"), so a compressed batch is captured. */
function variantOf(payload: Uint8Array): string {
  try {
    const request = decodeRequest(payload);
    if (request.api !== "Produce" || !("body" in request)) return "";
    const records = request.body.topicData[0]?.partitionData[0]?.records;
    const compression = records ? readRecordBatches(records)[0]?.batch.compression : undefined;
    return compression === undefined || compression === "none" ? "" : ` ${compression}`;
  } catch {
    return "";
  }
}
